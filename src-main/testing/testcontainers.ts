/**
 * `mailyard/testcontainers`: Mailyard's image in a test suite, started with Testcontainers (the
 * `testcontainers` package, an optional peer dependency: version 11, which runs on Node 20).
 *
 *   const mailyard = await new MailyardContainer().withApiKey('ci-key-0123456789').start();
 *   process.env.MAIL_API_URL = mailyard.url;               // the code under test sends here
 *   const message = await mailyard.waitForMessage({ recipient: 'ann@example.com' });
 *   await mailyard.stop();
 *
 * The started container has the helpers and typed clients of `mailyard/testing`, over the control
 * API with the container's control key (as `connectMailyard`). Its ports are published on 127.0.0.1
 * when the container runtime is on this machine (Testcontainers' default is every address).
 */
import { randomBytes } from 'node:crypto';
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  Wait,
} from 'testcontainers';
import { version } from '../../package.json';
import { connectMailyard } from './connect';
import { MailyardStartError } from './options';
import type { MailyardHelpers } from './types';

/** The image's HTTP port (service API, control API, web UI) and SMTP port, inside the container. */
export const MAILYARD_HTTP_PORT = 4400;
export const MAILYARD_SMTP_PORT = 2525;
/** The image `new MailyardContainer()` starts: the one `docker build -t mailyard:<version> .` makes of this version's repository. */
export const MAILYARD_IMAGE = `mailyard:${version}`;

/** Whether the container runtime's host is this machine (a loopback name or address). */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || /^127\./.test(host) || host === '::1' || host === '[::1]';
}

/** Mailyard's image as a Testcontainers container: `start()` waits for `/livez` and answers a StartedMailyardContainer. */
export class MailyardContainer extends GenericContainer {
  private apiKey = `mly_tc_${randomBytes(18).toString('base64url')}`;
  private controlKey = randomBytes(24).toString('base64url');

  constructor(image: string = MAILYARD_IMAGE) {
    super(image);
    // Both ports the image exposes are published: a port left out (podman's API reports it with a
    // null binding) would keep Testcontainers waiting for it.
    this.withExposedPorts(MAILYARD_HTTP_PORT, MAILYARD_SMTP_PORT)
      .withWaitStrategy(Wait.forHttp('/livez', MAILYARD_HTTP_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  /** The default account's API key on the container's fresh store (8 to 256 token characters); a random one when not given. */
  withApiKey(apiKey: string): this {
    this.apiKey = apiKey;
    return this;
  }

  /** The control key the control API and the web UI ask for (16 to 256 characters, no spaces); a random one when not given. */
  withControlKey(controlKey: string): this {
    this.controlKey = controlKey;
    return this;
  }

  override async start(): Promise<StartedMailyardContainer> {
    this.withEnvironment({ MAILYARD_API_KEY: this.apiKey, MAILYARD_CONTROL_KEY: this.controlKey });
    // On this machine, the ports are reachable from it only (a fixed host port given stays as given).
    const runtime = await getContainerRuntimeClient();
    if (isLoopbackHost(runtime.info.containerRuntime.host)) {
      for (const bindings of Object.values(this.hostConfig.PortBindings ?? {}) as Array<Array<{ HostIp?: string }>>) {
        for (const binding of bindings) binding.HostIp ??= '127.0.0.1';
      }
    }
    // What the container printed, to say why a start failed (a bad MAILYARD_* value exits at once).
    const output: string[] = [];
    const ownConsumer = this.logConsumer;
    this.logConsumer = (stream) => {
      stream.on('data', (chunk: Buffer | string) => {
        output.push(
          ...String(chunk)
            .split('\n')
            .filter((line) => line.trim() !== ''),
        );
        output.splice(0, Math.max(0, output.length - 20));
      });
      return ownConsumer?.(stream);
    };
    let started: StartedTestContainer;
    try {
      started = await super.start();
    } catch (err) {
      const printed = output.length > 0 ? `; its last lines of output:\n${output.join('\n')}` : '';
      throw new MailyardStartError(`MailyardContainer: ${this.imageName.string} did not start: ${(err as Error).message}${printed}`, undefined, { cause: err });
    }
    try {
      const host = started.getHost().includes(':') ? `[${started.getHost()}]` : started.getHost();
      const url = `http://${host}:${started.getMappedPort(MAILYARD_HTTP_PORT)}`;
      const helpers = await connectMailyard(url, { apiKey: this.apiKey, controlKey: this.controlKey });
      return new StartedMailyardContainer(started, helpers, { host: started.getHost(), port: started.getMappedPort(MAILYARD_SMTP_PORT) });
    } catch (err) {
      await started.stop();
      throw err instanceof MailyardStartError
        ? err
        : new MailyardStartError(`MailyardContainer: started, but not reachable: ${(err as Error).message}`, undefined, { cause: err });
    }
  }
}

/**
 * A running Mailyard container: where to send (`url` for the API, `smtp` for SMTP), its keys, and the
 * helpers of `mailyard/testing` (`waitForMessage`, `waitForDelivery`, `advanceClock`, `service`,
 * `control`, ...). `stop()` stops it (SIGTERM: a clean stop) and removes it.
 */
export class StartedMailyardContainer extends AbstractStartedContainer implements MailyardHelpers {
  /** The HTTP base URL from this machine: the service API under `/v1`, the control API under `/emulator`, the web UI at `/`. */
  readonly url: string;
  /** Where the SMTP sink is reached from this machine (no STARTTLS, AUTH optional, unless set otherwise through the environment). */
  readonly smtp: { host: string; port: number };
  readonly apiKey: string;
  /** The control key (`Authorization: Bearer <key>` on `/emulator`, the web UI's login); the helpers send it. */
  readonly controlKey: string;
  /** The version the container runs. */
  readonly version: string;
  /** The account `apiKey` belongs to. */
  readonly accountId: string;
  readonly service: MailyardHelpers['service'];
  readonly control: MailyardHelpers['control'];
  readonly waitForDelivery: MailyardHelpers['waitForDelivery'];
  readonly waitForMessage: MailyardHelpers['waitForMessage'];
  readonly deliveries: MailyardHelpers['deliveries'];
  readonly messages: MailyardHelpers['messages'];
  readonly content: MailyardHelpers['content'];
  readonly raw: MailyardHelpers['raw'];
  readonly attachment: MailyardHelpers['attachment'];
  readonly advanceClock: MailyardHelpers['advanceClock'];
  readonly fireEvent: MailyardHelpers['fireEvent'];
  readonly checkReceiver: MailyardHelpers['checkReceiver'];
  readonly createCatcher: MailyardHelpers['createCatcher'];
  readonly setRules: MailyardHelpers['setRules'];
  readonly setChaos: MailyardHelpers['setChaos'];
  readonly reset: MailyardHelpers['reset'];
  readonly runScenario: MailyardHelpers['runScenario'];

  constructor(started: StartedTestContainer, helpers: MailyardHelpers & { version: string; accountId: string }, smtp: { host: string; port: number }) {
    super(started);
    this.url = helpers.url;
    this.smtp = smtp;
    this.apiKey = helpers.apiKey;
    this.controlKey = helpers.controlKey!;
    this.version = helpers.version;
    this.accountId = helpers.accountId;
    this.service = helpers.service;
    this.control = helpers.control;
    this.waitForDelivery = helpers.waitForDelivery;
    this.waitForMessage = helpers.waitForMessage;
    this.deliveries = helpers.deliveries;
    this.messages = helpers.messages;
    this.content = helpers.content;
    this.raw = helpers.raw;
    this.attachment = helpers.attachment;
    this.advanceClock = helpers.advanceClock;
    this.fireEvent = helpers.fireEvent;
    this.checkReceiver = helpers.checkReceiver;
    this.createCatcher = helpers.createCatcher;
    this.setRules = helpers.setRules;
    this.setChaos = helpers.setChaos;
    this.reset = helpers.reset;
    this.runScenario = helpers.runScenario;
  }

  /**
   * Stops the container with SIGTERM, so Mailyard stops cleanly (within a second), then removes it.
   * Testcontainers' own default is a timeout of 0: SIGKILL at once. `timeout` (ms) is how long the
   * stop may take before the container is killed (default 10,000).
   */
  override stop(options: Partial<StopOptions> = {}): Promise<StoppedTestContainer> {
    return super.stop({ timeout: 10_000, ...options });
  }
}
