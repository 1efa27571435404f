#!/usr/bin/env node
// Entry point for `npm start` and `npx percall …`: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
