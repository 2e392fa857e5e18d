import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { SEND_LIMITS } from '../../../src-shared/schemas/email';
import type { Health } from '../../../src-shared/schemas/emulator';
import type { EmulatorClock } from '../clock';
import type { EmulatorConfig } from '../config';
import { buildHttpApp } from '../http/app';
import type { Readiness } from '../http/routes/probe.routes';
import type { LiveBus } from '../live-bus';
import { SmtpSink } from '../smtp/smtp-sink';
import { certificateFile, loadTlsIdentity, type TlsCertificate } from '../smtp/tls-certificate';
import type { EmulatorServices } from './types';

/** The two listeners of a running emulator and where they listen. */
export interface Listeners {
  http: FastifyInstance;
  smtp: SmtpSink;
  urls: { http: string; smtp: string };
  ports: { http: number; smtp: number };
  /** The sink's STARTTLS certificate; null when STARTTLS is off. */
  smtpCertificate: TlsCertificate | null;
}

/**
 * A listen address as a URL's host: IPv6 in brackets, and a wildcard (`0.0.0.0`, `::`) as `localhost`.
 * A wildcard is no address to connect to (`http://0.0.0.0:4400` fails in a browser on Windows and is
 * blocked by current Chrome), while `localhost` reaches a wildcard listener from its own machine and,
 * in a container whose port is published under the same number, from the host: the URLs printed,
 * reported and put in what the emulator hands out (links in mail, catcher URLs) work on both sides.
 */
function urlHostOf(address: string): string {
  if (address === '0.0.0.0' || address === '::') return 'localhost';
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * Starts the HTTP listener (the service API, the control API, tracking, OAuth, the UI) and the SMTP
 * sink on the configured host and ports; a listener that started is closed again if the other fails.
 */
export async function startListeners(deps: {
  config: EmulatorConfig;
  dataDir: string | null;
  version: string;
  logger: Logger;
  clock: EmulatorClock;
  live: LiveBus;
  services: EmulatorServices;
  health: () => Health;
  readiness: () => Readiness;
  wallClock?: () => number;
}): Promise<Listeners> {
  const { config, services, version } = deps;
  const http = await buildHttpApp({
    logger: deps.logger,
    version,
    host: config.host,
    controlKey: config.controlKey,
    wallClock: deps.wallClock,
    maxBodyBytes: config.maxBodyBytes,
    strictRequests: config.strictRequests,
    timeouts: {
      headersMs: config.httpHeadersTimeoutMs,
      requestMs: config.httpRequestTimeoutMs,
      keepAliveMs: config.httpKeepAliveTimeoutMs,
      idleMs: config.httpIdleTimeoutMs,
    },
    uiDir: config.uiDir,
    services,
    clock: deps.clock,
    live: deps.live,
    health: deps.health,
    readiness: deps.readiness,
  });
  let smtp: SmtpSink | undefined;
  try {
    const tls = config.smtpTls === 'starttls' ? await loadTlsIdentity(deps.dataDir) : null;
    await http.listen({ host: config.host, port: config.httpPort });
    const address = http.server.address() as AddressInfo;
    smtp = new SmtpSink(
      {
        authenticate: (apiKey) => services.accounts.authenticate(apiKey),
        defaultAccountId: () => services.accounts.defaultAccountId(),
        accept: (mail) => services.mailIntake.accept(mail),
        chaos: (kind) => services.chaos.fire(kind),
        logger: deps.logger.child({ component: 'smtp' }),
      },
      {
        host: config.host,
        port: config.smtpPort,
        auth: config.smtpAuth,
        maxMessageBytes: config.maxMessageBytes,
        maxRecipients: SEND_LIMITS.recipients,
        tls,
        banner: `Mailyard ${version} SMTP sink: mail here is captured, never delivered`,
        closeGraceMs: config.shutdownGraceMs,
        socketTimeoutMs: config.smtpIdleTimeoutMs,
        dataTimeoutMs: config.smtpDataTimeoutMs,
        sessionTimeoutMs: config.smtpSessionTimeoutMs,
        maxClients: config.smtpMaxClients,
        inFlightBytes: config.smtpInFlightBytes,
      },
    );
    const smtpAddress = await smtp.listen();
    return {
      http,
      smtp,
      urls: {
        http: `http://${urlHostOf(address.address)}:${address.port}`,
        smtp: `smtp://${urlHostOf(smtpAddress.address)}:${smtpAddress.port}`,
      },
      ports: { http: address.port, smtp: smtpAddress.port },
      smtpCertificate: tls && { pem: tls.cert, file: deps.dataDir === null ? null : certificateFile(deps.dataDir) },
    };
  } catch (err) {
    await http.close();
    await smtp?.close();
    throw err;
  }
}
