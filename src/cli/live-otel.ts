// Live OpenTelemetry export for the commands that record (chat, proxy): on when --otlp-endpoint
// is given or OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) is set. The store they write
// through is wrapped so each append, once written, is handed to the exporter; a collector that
// refuses or is down is told on stderr once per kind of failure, and the log is never affected.

import type { Command } from 'commander';
import { ShadowlogError } from '../log/index.js';
import { createLiveOtelExport, type LiveOtelExport, otlpEndpointConfigured } from '../otel/index.js';
import type { LogStore } from '../store/index.js';
import type { CommandContext } from './context.js';
import { escapeTerminalText } from './terminal-text.js';

export interface LiveOtelOption {
  readonly otlpEndpoint?: string;
}

/** Adds --otlp-endpoint to a recording command. */
export function addLiveOtelOption(command: Command): Command {
  return command.option(
    '--otlp-endpoint <url>',
    'also send the session as OpenTelemetry spans, as it is recorded, to this OTLP/HTTP endpoint (default: $OTEL_EXPORTER_OTLP_ENDPOINT when set; protocol and headers from the OTEL_EXPORTER_OTLP_* variables); a collector that is down never stops the recording',
  );
}

export interface LiveOtel {
  readonly store: LogStore;
  /** Sends what is left and says what was not delivered; never throws. */
  close(): Promise<void>;
}

/** The store to record through: wrapped for live export when it is asked for, else `store` itself. */
export function startLiveOtel(context: CommandContext, store: LogStore, options: LiveOtelOption): LiveOtel {
  const endpoint = options.otlpEndpoint;
  if (!otlpEndpointConfigured(endpoint === undefined ? {} : { endpoint })) return { store, close: async () => {} };
  const told = new Set<string>();
  const warn = (error: unknown) => {
    const code = ShadowlogError.isInstance(error) ? error.code : 'OTLP_DROPPED';
    if (told.has(code)) return;
    told.add(code);
    const message = error instanceof Error ? error.message : String(error);
    context.io.stderr.write(
      `shadowlog: otel: ${code}: ${escapeTerminalText(message)} (the session's log is not affected; later failures of this kind are not repeated)\n`,
    );
  };
  const live: LiveOtelExport = createLiveOtelExport({ ...(endpoint === undefined ? {} : { endpoint }), onError: warn });
  return {
    store: live.wrapStore(store),
    close: async () => {
      const stats = await live.close();
      if (stats.spansDropped > 0) {
        context.io.stderr.write(
          `shadowlog: otel: ${stats.spansSent} spans sent, ${stats.spansDropped} not delivered; \`shadowlog otel <id>\` sends them again from the log\n`,
        );
      }
    },
  };
}
