import type { ImportEdge } from './import-graph.js';

/**
 * Import cycles among the files of an import graph, each as a path `a -> b -> ... -> a`.
 *
 * The files that import each other in a loop are found as strongly connected components (Tarjan).
 * Inside each, every arrow that lies on a loop gets the shortest loop through it (a breadth-first
 * walk back from its target to its source), so every file and every arrow of every loop is named
 * at least once, without listing the exponentially many loops a tangle may hold. Each loop is
 * rotated to start at its smallest name and listed once. `typeSteps[i]` says the arrow
 * path[i] -> path[i + 1] is a type-only import; `typeOnly` says every arrow is.
 */
export interface Cycle {
  path: string[];
  typeSteps: boolean[];
  typeOnly: boolean;
}

type Graph = Map<string, Map<string, boolean>>;

function graphOf(edges: ImportEdge[]): Graph {
  const next: Graph = new Map();
  for (const edge of edges) {
    if (!edge.file) continue;
    const out = next.get(edge.from) ?? new Map<string, boolean>();
    // An arrow is type-only when every import along it is.
    out.set(edge.file, (out.get(edge.file) ?? true) && edge.typeOnly);
    next.set(edge.from, out);
  }
  return next;
}

const targets = (next: Graph, node: string) => [...(next.get(node)?.keys() ?? [])].sort();

function components(next: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const connect = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of targets(next, node)) {
      if (!index.has(target)) {
        connect(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component);
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** The shortest path from `from` to `to` that stays inside `within`. */
function shortestPath(next: Graph, from: string, to: string, within: Set<string>): string[] {
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let i = 0; i < queue.length && !cameFrom.has(to); i += 1) {
    for (const target of targets(next, queue[i]!)) {
      if (!within.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, queue[i]!);
      queue.push(target);
    }
  }
  const path = [to];
  while (path[0] !== from) path.unshift(cameFrom.get(path[0]!)!);
  return path;
}

export function findCycles(edges: ImportEdge[]): Cycle[] {
  const next = graphOf(edges);
  const cycles = new Map<string, Cycle>();
  for (const component of components(next)) {
    const within = new Set(component);
    for (const source of [...component].sort()) {
      for (const target of targets(next, source)) {
        if (!within.has(target)) continue;
        // source -> target, then back from target to source: a loop (a file importing itself is one too).
        const ring = target === source ? [source] : [source, ...shortestPath(next, target, source, within).slice(0, -1)];
        const start = ring.indexOf([...ring].sort()[0]!);
        const path = [...ring.slice(start), ...ring.slice(0, start), ring[start]!];
        const typeSteps = path.slice(1).map((to, i) => next.get(path[i]!)!.get(to)!);
        cycles.set(path.join(' -> '), { path, typeSteps, typeOnly: typeSteps.every(Boolean) });
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')));
}

/** `a -> b -(type)-> a`: a cycle as one line, its type-only arrows marked. */
export function describeCycle(cycle: Cycle): string {
  return cycle.path.map((file, i) => (i === 0 ? file : `${cycle.typeSteps[i - 1] ? ' -(type)-> ' : ' -> '}${file}`)).join('');
}
