// The shadowlog command line from source, as bin/shadowlog.js runs it from dist/, for tests
// that need a real process (real pipes, real signals).
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
