// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest | undefined;
  }

  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
    [key: string]: number;
  }

  interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
  export type { AutocannonOptions, AutocannonRequest, AutocannonResult, Histogram };
}
