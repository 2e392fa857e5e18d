import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { AccountIdParams, SetSigningSecretBody } from '../../schemas/dispatch';
import { AccountDeleted, AccountRecord, CreateAccountBody, Health, SetPayloadFormatBody } from '../../schemas/emulator';
import { defineOperations } from '../operation';

/** The control API's health and accounts (`/emulator/health`, `/emulator/accounts`). */
export const emulatorOperations = defineOperations({
  getHealth: {
    method: 'GET',
    path: '/emulator/health',
    summary: 'Health, version, listening URLs and data directory',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(Health),
  },
  listAccounts: {
    method: 'GET',
    path: '/emulator/accounts',
    summary: 'List accounts and their API keys',
    tag: 'Emulator',
    auth: 'none',
    response: dataResponse(z.array(AccountRecord)),
  },
  createAccount: {
    method: 'POST',
    path: '/emulator/accounts',
    summary: 'Create an account, with a generated API key unless one is given',
    tag: 'Emulator',
    auth: 'none',
    body: CreateAccountBody,
    response: dataResponse(AccountRecord),
    errors: [409, 415],
  },
  deleteAccount: {
    method: 'DELETE',
    path: '/emulator/accounts/{id}',
    summary:
      'Delete an account and everything it owns: its messages (and their search entries, events, tags, tracking), deliveries (pending ones cancelled, nothing more is sent), webhooks, domains, mailers (IMAP watches closed), inbound routes, templates, suppressions, catchers and OAuth requests. The default and --api-key accounts cannot be deleted',
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    response: dataResponse(AccountDeleted),
    errors: [404, 409, 415],
  },
  setSigningSecret: {
    method: 'PUT',
    path: '/emulator/accounts/{id}/signing-secret',
    summary: "Set or rotate the account's Standard Webhooks signing secret (generated when none is given)",
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    body: SetSigningSecretBody,
    response: dataResponse(AccountRecord),
    errors: [404, 415],
  },
  deleteSigningSecret: {
    method: 'DELETE',
    path: '/emulator/accounts/{id}/signing-secret',
    summary: 'Stop signing webhook requests of the account',
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    response: dataResponse(AccountRecord),
    errors: [404, 415],
  },
  setPayloadFormat: {
    method: 'PUT',
    path: '/emulator/accounts/{id}/payload-format',
    summary: "Choose the shape of the account's email event webhook bodies: the spec's or the newer guide's mailer_events",
    tag: 'Emulator',
    auth: 'none',
    params: AccountIdParams,
    body: SetPayloadFormatBody,
    response: dataResponse(AccountRecord),
    errors: [404, 415],
  },
});
