/**
 * A "billion laughs" YAML document: nine levels of anchors, each a list of nine aliases of the one
 * before, so a few hundred bytes expand to 9^9 strings if a parser lets aliases expand unchecked.
 */
export function aliasBomb(prefix = 'version: 1\nname: bomb\n'): string {
  const lines = [`${prefix}a0: &a0 ["lol"]`];
  for (let i = 1; i <= 9; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}
