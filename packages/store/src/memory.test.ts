import { runBackendConformance } from './conformance.ts';
import { MemoryBackend } from './memory.ts';

runBackendConformance('MemoryBackend', () => new MemoryBackend());
