#!/usr/bin/env node
// The shadowlog command line. The compiled library lives in dist/ (npm install builds it).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
