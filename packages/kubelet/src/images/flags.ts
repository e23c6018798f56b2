// The image flags (kemu's: a real kubelet has neither a catalogue nor image back-off settings; its back-off
// is the constant 10 s doubling to 300 s these default to). Spread into the kubelet's FLAGS.
export const IMAGE_FLAGS = {
  'image-catalog': {
    type: 'stringArray',
    default: [],
    usage: 'Emulation: image catalogue files (JSON or YAML, {"repositories": {"<repo>": {"tags": [...], "private": true}}}) merged over the built-in one, in order.',
  },
  'image-pull-backoff': { type: 'duration', default: 10_000, usage: 'Emulation: the first image pull back-off after a failed pull (and the retry period of a pod whose image could not be had).' },
  'image-pull-max-backoff': { type: 'duration', default: 300_000, usage: 'Emulation: the longest image pull back-off (each failed pull doubles it up to this).' },
} as const;
