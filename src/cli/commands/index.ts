// The commands, in the order `shadowlog --help` lists them; each registers itself from its own file.

import type { RegisterCommand } from '../command-kit.js';
import { registerChatCommand } from './chat.js';
import { registerCheckpointCommand } from './checkpoint.js';
import { registerCompactCommand } from './compact.js';
import { registerCopyCommand } from './copy.js';
import { registerDemoCommand } from './demo.js';
import { registerDiffCommand } from './diff.js';
import { registerExportCommand, registerImportCommand } from './export-import.js';
import { registerForkCommand } from './fork.js';
import { registerMeterCommand } from './meter.js';
import { registerOriginsCommand } from './origins.js';
import { registerOtelCommand } from './otel.js';
import { registerPolicyCommand } from './policy.js';
import { registerProxyCommand } from './proxy.js';
import { registerReplayCommand } from './replay.js';
import { registerSearchCommand } from './search.js';
import { registerSessionsCommand } from './sessions.js';
import { registerShowCommand } from './show.js';
import { registerStatsCommand } from './stats.js';
import { registerSyncCommand } from './sync.js';
import { registerTuneCommand } from './tune.js';
import { registerUnlockCommand } from './unlock.js';
import { registerVerifyCommand } from './verify.js';
import { registerViewCommand } from './view.js';
import { registerWhatifCommand } from './whatif.js';

export const COMMANDS: readonly RegisterCommand[] = [
  registerDemoCommand,
  registerChatCommand,
  registerForkCommand,
  registerReplayCommand,
  registerWhatifCommand,
  registerDiffCommand,
  registerCompactCommand,
  registerTuneCommand,
  registerUnlockCommand,
  registerStatsCommand,
  registerSessionsCommand,
  registerSearchCommand,
  registerShowCommand,
  registerOriginsCommand,
  registerViewCommand,
  registerVerifyCommand,
  registerCheckpointCommand,
  registerExportCommand,
  registerOtelCommand,
  registerImportCommand,
  registerSyncCommand,
  registerCopyCommand,
  registerMeterCommand,
  registerProxyCommand,
  registerPolicyCommand,
];
