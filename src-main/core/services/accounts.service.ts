import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { PayloadFormat } from '../../../src-shared/payload-format';
import { DEFAULT_SECRET_GRACE_MS } from '../../../src-shared/schemas/dispatch';
import type { AccountRecord } from '../../../src-shared/schemas/emulator';
import { type Clock, isoTimestamp } from '../clock';
import { generateSigningSecret } from '../dispatch/sign';
import { appError } from '../error-catalogue';
import type { AccountRow, AccountsRepo, NewAccountRow, SigningSecretsRow } from '../store/accounts.repo';

export interface Account {
  id: string;
  name: string;
  apiKey: string;
  isDefault: boolean;
  createdAt: string;
  signingSecret: string | null;
  /** The secret a rotation replaced while it still signs beside the new one, and until when (ISO); null otherwise. */
  previousSigningSecret: string | null;
  previousSecretUntil: string | null;
  /** The shape of its email event webhook bodies: its own choice, else the start option's. */
  payloadFormat: PayloadFormat;
}

export function toAccountRecord(a: Account): AccountRecord {
  return {
    id: a.id,
    name: a.name,
    api_key: a.apiKey,
    is_default: a.isDefault,
    created_at: a.createdAt,
    signing_secret: a.signingSecret,
    previous_signing_secret: a.previousSigningSecret,
    previous_secret_until: a.previousSecretUntil,
    payload_format: a.payloadFormat,
  };
}

/** A fresh API key: `mly_` and 32 characters of base64url (192 random bits). */
export function generateApiKey(): string {
  return `mly_${randomBytes(24).toString('base64url')}`;
}

export interface AccountsDeps {
  repo: AccountsRepo;
  clock: Clock;
  /** The webhook body shape of accounts that chose none (`--payload-format`). */
  defaultPayloadFormat: PayloadFormat;
  /** Told of each account created (the live stream: every open page's account switcher lists it). */
  created?: (account: Account) => void;
}

export class AccountsService {
  /** Signing secrets by account id, read on every delivery attempt. */
  private readonly secrets = new Map<string, SigningSecretsRow>();
  /** Webhook body shapes by account id, read on every email event. */
  private readonly formats = new Map<string, PayloadFormat>();
  private defaultId: string | undefined;
  /** Accounts by API key, read on every /v1 request and SMTP AUTH (keys never change; only found keys are kept). */
  private readonly byKey = new Map<string, Account>();

  constructor(private readonly deps: AccountsDeps) {}

  /**
   * Start-up: makes sure a default account exists (with `apiKey` when given, else a generated one)
   * and that an account with `apiKey` exists. Returns the default account.
   */
  bootstrap(apiKey?: string): Account {
    if (this.deps.repo.count() === 0) {
      this.insert({ name: 'Default', apiKey: apiKey ?? generateApiKey(), isDefault: true });
    } else if (apiKey !== undefined && !this.deps.repo.findByKey(apiKey)) {
      this.insert({ name: `Account ${this.deps.repo.count() + 1}`, apiKey, isDefault: false });
    }
    return this.defaultAccount();
  }

  /** After a reset removed accounts: keys and secrets are read afresh (a removed account's key no longer authenticates). */
  forgetCached(): void {
    this.secrets.clear();
    this.formats.clear();
    this.byKey.clear();
  }

  /** The account's number: the email logs' `accountId` (the real service's accounts are numbered). */
  numberOf(id: string): number {
    return this.deps.repo.numberOf(id);
  }

  private toAccount(row: AccountRow): Account {
    const previous = this.previousSigning(row);
    return {
      id: row.id,
      name: row.name,
      apiKey: row.api_key,
      isDefault: row.is_default === 1,
      createdAt: row.created_at,
      signingSecret: row.signing_secret,
      previousSigningSecret: previous?.secret ?? null,
      previousSecretUntil: previous ? isoTimestamp(previous.until) : null,
      payloadFormat: row.payload_format ?? this.deps.defaultPayloadFormat,
    };
  }

  get(id: string): Account | undefined {
    const row = this.deps.repo.findById(id);
    return row ? this.toAccount(row) : undefined;
  }

  defaultAccount(): Account {
    return this.toAccount(this.deps.repo.findDefault()!);
  }

  /** The default account's id (it never changes once made): where mail without AUTH goes. */
  defaultAccountId(): string {
    this.defaultId ??= this.deps.repo.findDefault()!.id;
    return this.defaultId;
  }

  /** A control-API request's account: the one named (404 when there is none), else the default. */
  accountIdOr404(accountId: string | undefined): string {
    if (accountId === undefined) return this.defaultAccountId();
    if (!this.deps.repo.findById(accountId)) throw appError('accountNotFound');
    return accountId;
  }

  /**
   * The secrets that sign the account's webhook requests now, the current one first: none when it
   * does not sign; two during a rotation's grace period (each gives one `v1,` signature).
   */
  signingSecrets(accountId: string): string[] {
    let row = this.secrets.get(accountId);
    if (row === undefined) {
      const found = this.deps.repo.findById(accountId);
      row = found ?? { signing_secret: null, previous_signing_secret: null, previous_secret_until: null };
      this.secrets.set(accountId, row);
    }
    if (row.signing_secret === null) return [];
    const previous = this.previousSigning(row);
    return previous ? [row.signing_secret, previous.secret] : [row.signing_secret];
  }

  /** The replaced secret while its grace period lasts on the emulator clock. */
  private previousSigning(row: SigningSecretsRow): { secret: string; until: number } | undefined {
    const { previous_signing_secret: secret, previous_secret_until: until } = row;
    return secret !== null && until !== null && this.deps.clock.now() < until ? { secret, until } : undefined;
  }

  /**
   * Sets (or, with no secret, generates) the account's signing secret; null turns signing off (and
   * ends any grace period). Replacing a secret is a rotation: the old one keeps signing beside the new
   * one for `graceMs` of emulator time (default a day; 0 ends it at once), so a receiver still holding
   * it keeps verifying until it updates. Only the secret just replaced is kept: a second rotation ends
   * the first one's grace.
   */
  setSigningSecret(accountId: string, secret: string | null | undefined, graceMs: number = DEFAULT_SECRET_GRACE_MS): Account {
    const row = this.deps.repo.findById(accountId);
    if (!row) throw appError('accountNotFound');
    const value = secret === undefined ? generateSigningSecret() : secret;
    let secrets: SigningSecretsRow = { signing_secret: value, previous_signing_secret: null, previous_secret_until: null };
    if (value !== null && value === row.signing_secret) secrets = row;
    else if (value !== null && row.signing_secret !== null && graceMs > 0) {
      secrets = { ...secrets, previous_signing_secret: row.signing_secret, previous_secret_until: this.deps.clock.now() + graceMs };
    }
    if (!this.deps.repo.setSigningSecrets(accountId, secrets)) throw appError('accountNotFound');
    this.secrets.set(accountId, {
      signing_secret: secrets.signing_secret,
      previous_signing_secret: secrets.previous_signing_secret,
      previous_secret_until: secrets.previous_secret_until,
    });
    this.byKey.clear();
    return this.get(accountId)!;
  }

  /** The shape of the account's email event webhook bodies (see Account.payloadFormat). */
  payloadFormat(accountId: string): PayloadFormat {
    let format = this.formats.get(accountId);
    if (format === undefined) {
      format = this.deps.repo.findById(accountId)?.payload_format ?? this.deps.defaultPayloadFormat;
      this.formats.set(accountId, format);
    }
    return format;
  }

  /** The account's choice of webhook body shape, from its next event on (deliveries already queued keep theirs). */
  setPayloadFormat(accountId: string, format: PayloadFormat): Account {
    if (!this.deps.repo.setPayloadFormat(accountId, format)) throw appError('accountNotFound');
    this.formats.set(accountId, format);
    this.byKey.clear();
    return this.get(accountId)!;
  }

  list(): Account[] {
    return this.deps.repo.list().map((row) => this.toAccount(row));
  }

  /** The account a Bearer token belongs to, or undefined. */
  authenticate(apiKey: string): Account | undefined {
    const cached = this.byKey.get(apiKey);
    if (cached) return cached;
    const row = this.deps.repo.findByKey(apiKey);
    if (!row) return undefined;
    const account = this.toAccount(row);
    this.byKey.set(apiKey, account);
    return account;
  }

  create(input: { name?: string; apiKey?: string }): Account {
    const apiKey = input.apiKey ?? generateApiKey();
    if (this.deps.repo.findByKey(apiKey)) {
      throw appError('accountExists');
    }
    const account = this.insert({ name: input.name ?? `Account ${this.deps.repo.count() + 1}`, apiKey, isDefault: this.deps.repo.count() === 0 });
    this.deps.created?.(account);
    return account;
  }

  private insert(input: { name: string; apiKey: string; isDefault: boolean }): Account {
    const row: NewAccountRow = {
      id: ulid(),
      name: input.name,
      api_key: input.apiKey,
      is_default: input.isDefault ? 1 : 0,
      created_at: isoTimestamp(this.deps.clock.now()),
    };
    this.deps.repo.insert(row);
    return this.toAccount({ ...row, signing_secret: null, previous_signing_secret: null, previous_secret_until: null, payload_format: null });
  }
}
