// A seeded xorshift generator: fuzz tests draw the same cases on every run, so a failure names a seed that repeats.
export function prng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % Math.max(1, n);
  };
}
