/**
 * The part of `fetch` the typed clients use, as a structural type: a browser's fetch, Node's (undici)
 * and any wrapper of either fit it. src-shared names it itself because it is checked with neither
 * runtime's type library (src-shared/tsconfig.json).
 */
export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type Fetch = (url: string, init: FetchInit) => Promise<FetchResponse>;
