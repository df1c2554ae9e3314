// SHA-256 by node:crypto, for the log's hash chain on Node: the same digests as the log's own
// sha256Hex (plain TypeScript), several times faster. log/ cannot import Node, so the store
// layer passes this one in as the Hasher.
//
// Both hash the UTF-8 bytes of the text, and both encode a lone surrogate as U+FFFD (EF BF BD):
// TextEncoder by the WHATWG Encoding standard, Buffer/crypto by V8's UTF-8 writer; a test holds
// them to it. The log never hands either one a lone surrogate anyway: it hashes canonical JSON,
// in which JSON.stringify writes a lone surrogate as a \uXXXX escape.

import { createHash } from 'node:crypto';
import type { Hasher } from '../log/hash.js';

export const nodeSha256Hex: Hasher = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
