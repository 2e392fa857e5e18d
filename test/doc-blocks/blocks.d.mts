/** The types of blocks.mjs (the doc-check markers' parser), for test/unit/doc-blocks.test.ts. */
export interface Declaration {
  name: string;
  type: string;
}

export interface Marker {
  mode: 'complete' | 'fragment' | 'compile-only';
  needs: string[];
  given: Declaration[];
  file: string | undefined;
  stub: { module: string; exports: Declaration[] } | undefined;
  openapi: string | undefined;
}

export interface Block {
  page: string;
  lang: string;
  /** The opening fence's line (1-based); the code starts on the next. */
  fenceLine: number;
  /** The marker's line, when the block has one. */
  markerLine: number | undefined;
  marker: Marker;
  code: string;
}

export const LANGUAGES: Record<string, string>;
export function docPages(root: string): string[];
export function splitTopLevel(text: string, separator: string): string[];
export function parseDeclarations(text: string): Declaration[];
export function parseMarker(text: string): { marker: Marker; error?: undefined } | { error: string; marker?: undefined };
export function parseBlocks(page: string, text: string): { blocks: Block[]; errors: string[] };
export function runnerOf(code: string): 'vitest' | 'node:test' | 'jest' | 'playwright' | 'unknown' | undefined;
