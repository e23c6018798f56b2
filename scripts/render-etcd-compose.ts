// Regenerates docker-compose.etcd.yml (the compose lab on etcd) from docker-compose.yml.
// Run: node --import tsx scripts/render-etcd-compose.ts
import fs from 'node:fs';
import { COMPOSE_FILE } from '../packages/kemu/src/commands/compose.ts';
import { ETCD_COMPOSE_FILE, renderEtcdCompose } from '../packages/kemu/src/compose/etcd-compose.ts';

fs.writeFileSync(ETCD_COMPOSE_FILE, renderEtcdCompose(fs.readFileSync(COMPOSE_FILE, 'utf8')));
console.log(`wrote ${ETCD_COMPOSE_FILE}`);
