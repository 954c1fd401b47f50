#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader, so the installed bin needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
