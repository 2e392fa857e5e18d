import { dataResponse } from '../../schemas/common';
import { ReceiverCheckBody, ReceiverCheckReport } from '../../schemas/receiver-check';
import { defineOperations } from '../operation';

/** Certifying a receiver (`/emulator/receiver-checks`): what the service will send it, graded. */
export const receiverCheckOperations = defineOperations({
  checkReceiver: {
    method: 'POST',
    path: '/emulator/receiver-checks',
    summary:
      "Certify a webhook receiver: sends it every event kind, a duplicate, events out of order, two events of one kind for one message, unknown fields, its secret header missing and wrong (and, with a signing secret, a bad signature and a stale timestamp), one request at a time, and answers each check graded with its requests and answers (with effects_url, what the receiver acted on too). The URL passes the webhook URL policy (strict mode's included). Answers when the last request is answered or timed out",
    tag: 'Deliveries',
    auth: 'none',
    body: ReceiverCheckBody,
    response: dataResponse(ReceiverCheckReport),
    errors: [400, 409, 422],
  },
});
