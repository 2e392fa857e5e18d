import {
  Catcher,
  CatcherAccountQuery,
  CatcherIdParams,
  CatcherList,
  CatcherRequestPage,
  CatcherRequestsQuery,
  CreateCatcherBody,
  DeleteCatcherResult,
  UpdateCatcherBody,
  UseCatcherResult,
} from '../../schemas/catchers';
import { dataResponse } from '../../schemas/common';
import { defineOperations } from '../operation';

/**
 * Catchers (`/emulator/catchers`): receivers on Mailyard's own listener (`/catch/{id}`) that record what
 * they receive and answer as told. Managing them and reading what they caught are control operations;
 * only `/catch/{id}` itself is open to senders.
 */
export const catcherOperations = defineOperations({
  createCatcher: {
    method: 'POST',
    path: '/emulator/catchers',
    summary: 'Create a catcher for an account (the default account unless account_id names one): answers its id and the url to send requests to',
    tag: 'Catchers',
    auth: 'none',
    body: CreateCatcherBody,
    response: dataResponse(Catcher),
    status: 201,
    errors: [404],
  },
  listCatchers: {
    method: 'GET',
    path: '/emulator/catchers',
    summary: "An account's catchers, newest first",
    tag: 'Catchers',
    auth: 'none',
    query: CatcherAccountQuery,
    response: dataResponse(CatcherList),
    errors: [404],
  },
  getCatcher: {
    method: 'GET',
    path: '/emulator/catchers/{id}',
    summary: 'One catcher: its url, how it answers, how many requests it received',
    tag: 'Catchers',
    auth: 'none',
    params: CatcherIdParams,
    response: dataResponse(Catcher),
    errors: [404],
  },
  updateCatcher: {
    method: 'PATCH',
    path: '/emulator/catchers/{id}',
    summary: 'Change how a catcher answers (mode, replaced whole: fields left out take their defaults) or its name',
    tag: 'Catchers',
    auth: 'none',
    params: CatcherIdParams,
    body: UpdateCatcherBody,
    response: dataResponse(Catcher),
    errors: [404],
  },
  deleteCatcher: {
    method: 'DELETE',
    path: '/emulator/catchers/{id}',
    summary: 'Delete a catcher and the requests it kept (its url answers 404 afterwards)',
    tag: 'Catchers',
    auth: 'none',
    params: CatcherIdParams,
    response: dataResponse(DeleteCatcherResult),
    errors: [404],
  },
  listCatcherRequests: {
    method: 'GET',
    path: '/emulator/catchers/{id}/requests',
    summary:
      'The requests a catcher received, newest first, each with what it answered, the signature verdict and the delivery that sent it; cursor pagination',
    tag: 'Catchers',
    auth: 'none',
    params: CatcherIdParams,
    query: CatcherRequestsQuery,
    response: dataResponse(CatcherRequestPage),
    errors: [404],
  },
  pointWebhookAtCatcher: {
    method: 'POST',
    path: '/emulator/catchers/{id}/use-as-webhook',
    summary: "Point the catcher's account's EMAIL_EVENT webhook at the catcher, with every event kind on (created when the account has none)",
    tag: 'Catchers',
    auth: 'none',
    params: CatcherIdParams,
    response: dataResponse(UseCatcherResult),
    errors: [404],
  },
});
