// helper.DefaultNormalizeScore: scale scores so the highest becomes maxPriority (reversed: lowest).
export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: number[]): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(maxPriority);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((maxPriority * (scores[i] as number)) / max);
    if (reverse) s = maxPriority - s;
    scores[i] = s;
  }
}
