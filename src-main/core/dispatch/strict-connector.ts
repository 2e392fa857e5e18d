import { isIP } from 'node:net';
import { buildConnector } from 'undici';

/**
 * The addresses a host may be connected to, checked; throws (a refusal or a failed lookup) when it
 * may not. `checkedAddresses` of net/strict-addresses.ts, in strict mode.
 */
export type CheckedResolve = (host: string, port: string) => Promise<string[]>;

/**
 * An undici connector that checks where each connection goes before making it: `resolve` names the
 * host's addresses (or refuses), and the connection is made to the first of them, never to whatever
 * DNS answers next (no DNS rebinding between the check and the connection). For https the host name
 * still names the server (SNI and the certificate check). A refusal reaches the request as its
 * error: a failed attempt, with no connection made.
 */
export function strictConnector(options: buildConnector.BuildOptions, resolve: CheckedResolve): buildConnector.connector {
  const connect = buildConnector(options);
  return (target, callback) => {
    resolve(target.hostname, target.port).then(
      (addresses) => {
        const servername = target.servername ?? (isIP(target.hostname) === 0 ? target.hostname : undefined);
        connect({ ...target, hostname: addresses[0]!, servername }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}
