// The data shapes of the core types (SPEC §2), one validator per type and format version.
//
// A session keeps the format version its session/start names, and every event in it is held to
// that version's shapes: a version-1 session continued by this code is still written in version
// 1, so a reader that knows only version 1 goes on reading it. What version 2 adds comes in two
// kinds. Fields a version-1 reader ignores (usage's cache and reasoning counts, session/start's
// parent, model/request's contextWindow) are checked in both versions, since they mean the same
// in both. Shapes a version-1 reader would refuse or misread (new content blocks, image URLs, an
// error flag, surfaceChange, provenance) are refused in a version-1 session.

import { BLOCK_TYPES, FORMAT_1_BLOCK_TYPES, isBase64, parseBase64DataUrl } from './content-block.js';
import { FormatVersionError } from './errors.js';
import { FORMAT_VERSION, type FormatVersion, TURN_END_REASONS } from './event.js';
import { isSessionId } from './session-id.js';
import {
  arrayOf,
  type Checker,
  fail,
  isAnything,
  isBoolean,
  isCount,
  isNonEmptyString,
  isObject,
  isPlainObject,
  isPositiveInteger,
  isSeq,
  isString,
  objectWith,
  oneOf,
} from './shape.js';

const DIGEST = /^[0-9a-f]{64}$/;

const isPlainObjectValue: Checker = (value, field, seq) => {
  if (!isPlainObject(value)) fail(field, 'an object (an item as the provider returned it)', value, seq);
};
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

const digest: Checker = (value, field, seq) => {
  if (typeof value !== 'string' || !DIGEST.test(value)) fail(field, 'a lowercase hex SHA-256 digest', value, seq);
};
const base64: Checker = (value, field, seq) => {
  if (!isBase64(value)) fail(field, 'base64 text', value, seq);
};
const absent =
  (why: string): Checker =>
  (value, field, seq) => {
    if (value !== undefined) fail(field, `absent (${why})`, value, seq);
  };

const imageUrl: Checker = (value, field, seq) => {
  if (typeof value !== 'string' || !URL_SCHEME.test(value)) fail(field, 'an absolute URL (https:, data:, …)', value, seq);
  if (parseBase64DataUrl(value) !== undefined) {
    fail(field, 'a URL that is not a base64 data: URL (store one as {mediaType, data}: imageBlockFromUrl does)', 'a base64 data: URL', seq);
  }
};

const reasoningBlock = objectWith(
  { provider: isNonEmptyString },
  { text: isString, summary: arrayOf(isString), signature: isString, data: isString, id: isString },
);
const serverToolCallBlock = objectWith(
  { provider: isNonEmptyString, name: isNonEmptyString, input: isAnything },
  { id: isString, status: isString },
);
const serverToolResultBlock = objectWith({ provider: isNonEmptyString, name: isNonEmptyString, content: isAnything }, { callId: isString });
const compactionBlock = objectWith(
  { provider: isNonEmptyString },
  {
    text: isNonEmptyString,
    data: isNonEmptyString,
    signature: isString,
    id: isString,
    toolChanges: arrayOf(isAnything),
    items: arrayOf(isPlainObjectValue),
  },
);

function contentBlock(version: FormatVersion): Checker {
  const types = version === 1 ? FORMAT_1_BLOCK_TYPES : BLOCK_TYPES;
  return (value, field, seq) => {
    if (!isPlainObject(value)) fail(field, 'a content block object', value, seq);
    if (typeof value.type !== 'string' || !types.includes(value.type)) {
      fail(
        `${field}.type`,
        `one of ${types.join(', ')}${version === 1 ? ' (format version 1, the version of this session)' : ''}`,
        value.type,
        seq,
      );
    }
    switch (value.type) {
      case 'text':
        isString(value.text, `${field}.text`, seq);
        return;
      case 'image':
        if (version === 2 && value.url !== undefined) {
          imageUrl(value.url, `${field}.url`, seq);
          if (value.data !== undefined) fail(`${field}.data`, 'absent in an image given by URL', value.data, seq);
          if (value.mediaType !== undefined) isNonEmptyString(value.mediaType, `${field}.mediaType`, seq);
          return;
        }
        isNonEmptyString(value.mediaType, `${field}.mediaType`, seq);
        base64(value.data, `${field}.data`, seq);
        return;
      case 'reasoning':
        reasoningBlock(value, field, seq);
        if (value.text === undefined && value.summary === undefined && value.signature === undefined && value.data === undefined) {
          fail(field, 'a reasoning block with text, summary, signature or data', 'none of them', seq);
        }
        return;
      case 'server-tool-call':
        serverToolCallBlock(value, field, seq);
        return;
      case 'compaction':
        compactionBlock(value, field, seq);
        if (value.text === undefined && value.data === undefined) {
          fail(field, 'a compaction block with text (a readable summary) or data (an opaque one)', 'neither', seq);
        }
        return;
      default:
        serverToolResultBlock(value, field, seq);
    }
  };
}

/** Usage counts; the parts must fit in the wholes (an importer that took a provider's uncached input for the whole input is caught here). */
const usageCounts = objectWith(
  { inputTokens: isCount, outputTokens: isCount },
  { cacheReadTokens: isCount, cacheWriteTokens: isCount, reasoningTokens: isCount },
);
const usage: Checker = (value, field, seq) => {
  usageCounts(value, field, seq);
  const counts = value as Record<string, number | undefined>;
  const cached = (counts.cacheReadTokens ?? 0) + (counts.cacheWriteTokens ?? 0);
  if (cached > (counts.inputTokens as number)) {
    fail(`${field}.inputTokens`, `the whole input, cache reads and writes included (at least ${cached})`, counts.inputTokens, seq);
  }
  if ((counts.reasoningTokens ?? 0) > (counts.outputTokens as number)) {
    fail(`${field}.outputTokens`, `the whole output, reasoning included (at least ${counts.reasoningTokens})`, counts.outputTokens, seq);
  }
};

const toolCall = objectWith(
  { callId: isNonEmptyString, name: isNonEmptyString, arguments: isAnything },
  { argumentsText: isString, providerCallId: isString },
);

/** A format version this reader knows: a session written by a newer shadowlog is refused, not misread. */
const formatVersion: Checker = (value, field, seq) => {
  isPositiveInteger(value, field, seq);
  if ((value as number) > FORMAT_VERSION) throw new FormatVersionError(value as number, FORMAT_VERSION, seq);
};
const sessionId: Checker = (value, field, seq) => {
  if (!isSessionId(value)) fail(field, 'a session id ([A-Za-z0-9][A-Za-z0-9._-]{0,127})', value, seq);
};

const surfaceSplice: Checker = (value, field, seq) => {
  if (!Array.isArray(value) || value.length < 2) fail(field, 'a splice [position, deleteCount, ...seqs]', value, seq);
  isCount(value[0], `${field}[0]`, seq);
  isCount(value[1], `${field}[1]`, seq);
  for (let index = 2; index < value.length; index++) isSeq(value[index], `${field}[${index}]`, seq);
  if (value.length === 2 && value[1] === 0) fail(field, 'a splice that removes or adds a seq', 'one that changes nothing', seq);
};
const surfaceChange = objectWith({ base: isSeq, length: isCount, splices: arrayOf(surfaceSplice) });

const requestBodyFields = objectWith({ encoding: oneOf(['utf-8', 'base64']), text: isString });
const requestBody: Checker = (value, field, seq) => {
  requestBodyFields(value, field, seq);
  const body = value as { encoding: string; text: string };
  if (body.encoding === 'base64') base64(body.text, `${field}.text`, seq);
};

const requestCommon = { turn: isPositiveInteger, step: isPositiveInteger, provider: isString, model: isString };
const sentRequest = { params: isObject, requestDigest: digest, estimatedTokens: isCount, rendererVersion: isString };
const optionalRequest = { params: isObject, estimatedTokens: isCount, rendererVersion: isString, contextWindow: isPositiveInteger };

// Every version-1 call was sent by shadowlog; a provenance would make a version-2 reader treat it otherwise.
const formatTwoOnly = absent('format 2 only; every call of a version-1 session was sent by shadowlog');
const modelRequestV1 = objectWith(
  { ...requestCommon, surfaceSeqs: arrayOf(isSeq), ...sentRequest },
  { contextWindow: isPositiveInteger, provenance: formatTwoOnly, requestBody: formatTwoOnly },
);

const modelRequestV2Common = objectWith(requestCommon, {
  provenance: oneOf(['imported', 'proxied']),
  surfaceSeqs: arrayOf(isSeq),
  surfaceChange,
});
const importedRequest = objectWith(
  {},
  {
    ...optionalRequest,
    requestDigest: absent('an imported call was not sent by shadowlog: no bytes to digest'),
    requestBody: absent('only a proxied call stores its body'),
  },
);
const proxiedRequest = objectWith({ requestDigest: digest, requestBody }, optionalRequest);
const shadowlogRequest = objectWith(sentRequest, {
  contextWindow: isPositiveInteger,
  requestBody: absent('only a proxied call stores its body'),
});

const modelRequestV2: Checker = (value, field, seq) => {
  modelRequestV2Common(value, field, seq);
  const data = value as Record<string, unknown>;
  if ((data.surfaceSeqs === undefined) === (data.surfaceChange === undefined)) {
    fail(
      `${field}.surfaceSeqs`,
      'present, or else surfaceChange (exactly one of the two)',
      data.surfaceSeqs === undefined ? 'neither' : 'both',
      seq,
    );
  }
  switch (data.provenance) {
    case 'imported':
      importedRequest(value, field, seq);
      return;
    case 'proxied':
      proxiedRequest(value, field, seq);
      return;
    default:
      shadowlogRequest(value, field, seq);
  }
};

const turnEndReason: Checker = (value, field, seq) => {
  if (typeof value !== 'string' || !(TURN_END_REASONS as readonly string[]).includes(value)) {
    fail(field, `one of ${TURN_END_REASONS.join(', ')}`, value, seq);
  }
};

const errorMessage = objectWith({ message: isString });
const toolError =
  (version: FormatVersion): Checker =>
  (value, field, seq) => {
    if (version === 2 && value === true) return;
    if (version === 2 && !isPlainObject(value)) fail(field, 'true, or {message}; leave it out when the result is not an error', value, seq);
    errorMessage(value, field, seq);
  };

function shapes(version: FormatVersion): Record<string, Checker> {
  const content = arrayOf(contentBlock(version));
  return {
    'session/start': objectWith(
      { formatVersion, harnessVersion: isString },
      {
        parent: objectWith({ sessionId }, { callId: isNonEmptyString }),
        continues: objectWith({ sessionId, reason: isString }, { evidence: objectWith({}) }),
        whatif: objectWith({
          sessionId,
          requestSeq: isSeq,
          turn: isPositiveInteger,
          step: isPositiveInteger,
          question: isObject,
          variant: oneOf(['counterfactual', 'recorded']),
          sample: isPositiveInteger,
          run: sessionId,
        }),
      },
    ),
    'session/end-seed': objectWith({ reason: isString }),
    'session/fork': objectWith({ parentSessionId: sessionId, forkSeq: isSeq, parentHash: digest }),
    'turn/start': objectWith({ turn: isPositiveInteger }),
    'turn/end': objectWith({ turn: isPositiveInteger, reason: turnEndReason }),
    'system/message': objectWith({ content }),
    'user/message': objectWith({ content }),
    'assistant/message': objectWith({ content, toolCalls: arrayOf(toolCall), model: isString }, { usage }),
    'tool/result': objectWith({ callId: isNonEmptyString, content }, { error: toolError(version) }),
    'model/request': version === 1 ? modelRequestV1 : modelRequestV2,
    'model/error': objectWith({
      turn: isPositiveInteger,
      step: isPositiveInteger,
      code: isString,
      message: isString,
      retryable: isBoolean,
      contextOverflow: isBoolean,
    }),
    'model/unrecorded-answer': objectWith(
      {
        turn: isPositiveInteger,
        step: isPositiveInteger,
        code: isString,
        message: isString,
        raw: objectWith({ format: oneOf(['json', 'sse', 'result']), text: isString }),
      },
      { usage },
    ),
  };
}

const BY_VERSION: Record<FormatVersion, Record<string, Checker>> = { 1: shapes(1), 2: shapes(2) };

/** The validator of a core type in a format version; undefined for a type that is not core. */
export function coreShapeOf(type: string, version: FormatVersion): Checker | undefined {
  return Object.hasOwn(BY_VERSION[version], type) ? BY_VERSION[version][type] : undefined;
}

export function isCoreType(type: string): boolean {
  return Object.hasOwn(BY_VERSION[FORMAT_VERSION], type);
}

/** The version a session/start names, once its data is valid. */
export function formatVersionOf(data: { formatVersion: number }): FormatVersion {
  return data.formatVersion === 1 ? 1 : 2;
}
