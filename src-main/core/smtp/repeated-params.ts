/**
 * A parameter of MAIL FROM or RCPT TO given twice with the same value means what it means once.
 * Python's smtplib sends `SMTPUTF8` twice when a caller asks for it for an international address
 * (`send_message` adds its own), and Mailpit, like most servers, takes that. smtp-server answers any
 * repeat with 501: the sink refuses only a parameter given twice with different values (which would
 * hold?), with smtp-server's own 501 naming it.
 */

/** What the sink reads of an smtp-server connection here: its address-command parser (not typed by smtp-server). */
export interface AddressCommandParser {
  _parseAddressCommand?: (name: string, command: unknown) => unknown;
}

/** The first parameter of `command` (`MAIL FROM:<a@b> K=V ...`) given twice with different values. */
export function conflictingParam(command: string): string | undefined {
  const params = command.split(':').slice(1).join(':').trim().split(/\s+/).slice(1);
  const seen = new Map<string, string | true>();
  for (const param of params) {
    const [key = '', ...rest] = param.split('=');
    if (!key) continue;
    const name = key.toUpperCase();
    const value = rest.length > 0 ? rest.join('=') : true;
    if (seen.has(name) && seen.get(name) !== value) return name;
    seen.set(name, value);
  }
  return undefined;
}

/** Makes `connection` accept a MAIL FROM or RCPT TO parameter repeated with the same value. */
export function acceptRepeatedParams(connection: AddressCommandParser): void {
  const parse = connection._parseAddressCommand;
  if (typeof parse !== 'function') return;
  connection._parseAddressCommand = (name, command) => {
    const parsed = parse.call(connection, name, command) as { duplicate?: string } | false;
    if (parsed && parsed.duplicate !== undefined) {
      const conflict = conflictingParam(String(command ?? ''));
      if (conflict === undefined) delete parsed.duplicate;
      else parsed.duplicate = conflict;
    }
    return parsed;
  };
}
