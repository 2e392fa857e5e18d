/** The success envelope of every operation: `{success: true, message, data?}`. */
export function ok(message: string): { success: true; message: string };
export function ok<T>(message: string, data: T): { success: true; message: string; data: T };
export function ok<T>(message: string, data?: T) {
  return data === undefined ? { success: true as const, message } : { success: true as const, message, data };
}
