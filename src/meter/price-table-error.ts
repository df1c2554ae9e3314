// A price table that cannot be read (a user's --prices file): nothing is priced from it.

import { ShadowlogError } from '../log/errors.js';

export class PriceTableError extends ShadowlogError {
  /** The key of the file that is wrong (`models.gpt-5.input`). */
  readonly key: string;
  constructor(key: string, message: string) {
    super('INVALID_CONFIG', message);
    this.key = key;
  }
}
