// Regenerates deploy/haproxy/haproxy.cfg (the compose lb's config) from the shared template.
// Run: node --import tsx scripts/render-haproxy-config.ts
import fs from 'node:fs';
import { COMPOSE_CONFIG, composeHaproxyParams, renderHaproxyConfig } from '../packages/kemu/src/haproxy.ts';

fs.writeFileSync(COMPOSE_CONFIG, renderHaproxyConfig(composeHaproxyParams()));
console.log(`wrote ${COMPOSE_CONFIG}`);
