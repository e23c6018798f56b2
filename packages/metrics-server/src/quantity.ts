// Canonical quantities as metrics-server writes usage: CPU as resource.NewScaledQuantity(nanocores, Nano) and memory
// as resource.NewQuantity(bytes, BinarySI), both printed in their shortest exact form.

export function cpuQuantity(nanoCores: number): string {
  const n = Math.trunc(nanoCores);
  if (n === 0) return '0';
  if (n % 1e9 === 0) return String(n / 1e9);
  if (n % 1e6 === 0) return `${n / 1e6}m`;
  if (n % 1e3 === 0) return `${n / 1e3}u`;
  return `${n}n`;
}

export function memoryQuantity(bytes: number): string {
  let b = Math.round(bytes);
  if (b === 0) return '0';
  for (const suffix of ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi']) {
    if (b % 1024 !== 0 || suffix === 'Pi') return `${b}${suffix}`;
    b /= 1024;
  }
  return String(b);
}
