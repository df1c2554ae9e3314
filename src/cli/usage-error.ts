// Bad usage of the command line: exit code 2.

import { ShadowlogError } from '../log/index.js';

export class UsageError extends ShadowlogError {
  constructor(message: string) {
    super('USAGE', message);
  }
}
