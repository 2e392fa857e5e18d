import type { z } from 'zod';
import { type CallInput, type CallOutput, HttpClient, type HttpClientOptions } from './http-client';
import { type ControlOperations, controlOperations, type Operation, type ServiceOperations, serviceOperations } from './operations';

/** `'/v1/inbound/domain/{domain}/username/{username}'` to `['domain', 'username']`. */
type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? [Name, ...PathParamNames<Rest>] : [];

type ParamValues<O extends Operation, Names extends string[]> = {
  [I in keyof Names]: O extends { params: infer S extends z.ZodType } ? z.input<S>[Names[I] & keyof z.input<S>] : never;
};

/** A body or query argument, optional when the operation takes it without any field. */
type Part<O extends Operation, K extends 'body' | 'query'> =
  O extends Record<K, infer S extends z.ZodType>
    ? undefined extends z.input<S>
      ? [value?: z.input<S>]
      : // biome-ignore lint/complexity/noBannedTypes: `{} extends T` asks whether an empty object satisfies T (every field optional)
        {} extends z.input<S>
        ? [value?: z.input<S>]
        : [value: z.input<S>]
    : [];

/** A call's arguments: the path parameters in the order of its path, then its body, then its query. */
export type OperationArgs<O extends Operation> = [...ParamValues<O, PathParamNames<O['path']>>, ...Part<O, 'body'>, ...Part<O, 'query'>];

/** One method per operation of a table, named as the operation, answering its parsed response. */
export type OperationClient<T extends Record<string, Operation>> = {
  readonly [K in keyof T]: (...args: OperationArgs<T[K]>) => Promise<CallOutput<T[K]>>;
};

/** The names of a path's parameters, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

/** The positional arguments of a call as the transport's input: path parameters, then body, then query. */
export function callInputOf(op: Operation, args: readonly unknown[]): CallInput<Operation> {
  const names = pathParamNames(op.path);
  let next = names.length;
  const input: { params?: Record<string, unknown>; body?: unknown; query?: unknown } = {};
  if (names.length > 0) input.params = Object.fromEntries(names.map((name, i) => [name, args[i]]));
  if (op.body !== undefined) input.body = args[next++];
  if (op.query !== undefined) input.query = args[next++] ?? {};
  return input as CallInput<Operation>;
}

/**
 * A client class for a table: its instances have one method per operation, built from the operation's
 * description (so a new operation has its method with no code written for it).
 */
function clientFor<T extends Record<string, Operation>, Options>(table: T, transport: (options: Options) => HttpClient) {
  return class {
    constructor(options: Options) {
      const http = transport(options);
      for (const [name, op] of Object.entries(table)) {
        Object.defineProperty(this, name, { value: (...args: unknown[]) => http.call(op, callInputOf(op, args)), enumerable: true });
      }
    }
  } as unknown as new (
    options: Options,
  ) => OperationClient<T>;
}

export type ServiceClientOptions = Omit<HttpClientOptions, 'headers'> & { apiKey: string };

/** Typed client of the emulated service (`/v1`); method names are the spec's operation names. */
export type ServiceClient = OperationClient<ServiceOperations>;
export const ServiceClient = clientFor(
  serviceOperations,
  (options: ServiceClientOptions) => new HttpClient({ ...options, headers: { authorization: `Bearer ${options.apiKey}` } }),
);

/** Typed client of the emulator's control API (`/emulator`). */
export type ControlClient = OperationClient<ControlOperations>;
export const ControlClient = clientFor(controlOperations, (options: HttpClientOptions) => new HttpClient(options));

export { ApiError } from './http-client';
