/** The page whose tables a full `npm run bench` rewrites, and the name of its generated block. */
export const BENCHMARK_PAGE = 'docs/benchmarks.md';
export const BENCHMARK_BLOCK = 'benchmark (npm run bench)';
