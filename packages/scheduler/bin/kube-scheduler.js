#!/usr/bin/env node
// Runs the bundle `npm run build` made when it is current, else the TypeScript sources (packages/base/launch.mjs).
import { launch } from '@kemu/base/launch';
await launch(import.meta.url, 'kube-scheduler');
