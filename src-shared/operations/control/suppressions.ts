import { dataResponse } from '../../schemas/common';
import { ListSuppressionsQuery, RemoveSuppressionParams, RemoveSuppressionResult, SuppressionList, SuppressionsQuery } from '../../schemas/suppressions';
import { defineOperations } from '../operation';

/** The control API's view of an account's suppression list (`/emulator/suppressions`). */
export const suppressionOperations = defineOperations({
  listSuppressions: {
    method: 'GET',
    path: '/emulator/suppressions',
    summary:
      "An account's suppressed addresses (the default account unless account_id names one), newest first: hard bounces, spam complaints and unsubscribes, with the reason, the message that caused it and since when; with email (comma-separated), only the entries of those addresses",
    tag: 'Simulation',
    auth: 'none',
    query: ListSuppressionsQuery,
    response: dataResponse(SuppressionList),
    errors: [404],
  },
  removeSuppression: {
    method: 'DELETE',
    path: '/emulator/suppressions/{email}',
    summary: "Lift an address's suppression: its next messages are simulated again (404 when it is not suppressed)",
    tag: 'Simulation',
    auth: 'none',
    params: RemoveSuppressionParams,
    query: SuppressionsQuery,
    response: dataResponse(RemoveSuppressionResult),
    errors: [404],
  },
});
