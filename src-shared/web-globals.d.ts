/**
 * The globals src-shared uses that both of its runtimes have (browsers and Node), declared only as far
 * as the folder uses them. src-shared/tsconfig.json checks the folder with neither the DOM's type
 * library nor Node's, so a global only one runtime has (`document`, `window`, `Buffer`, `process`)
 * fails `npm run typecheck`; only that config reads this file (the renderer and src-main check the
 * same code against their full libraries). Declare a global here only if both runtimes have it.
 */

declare var fetch: import('./fetch-types').Fetch;

declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
  readonly host: string;
  readonly pathname: string;
}

declare class URLSearchParams {
  constructor();
  set(name: string, value: string): void;
  toString(): string;
}
