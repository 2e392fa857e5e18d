import { z } from 'zod';
import { dataResponse } from '../../schemas/common';
import { DomainParams, EmulatorDomain, SetVerificationBody, VerificationSetting } from '../../schemas/domains';
import { defineOperations } from '../operation';

/** The control API's view of every account's sending domains (`/emulator/domains`). */
export const controlDomainOperations = defineOperations({
  listEmulatorDomains: {
    method: 'GET',
    path: '/emulator/domains',
    summary: "Every account's sending domains, with the verification outcome setting and recent checks",
    tag: 'Domains',
    auth: 'none',
    response: dataResponse(z.array(EmulatorDomain)),
  },
  setDomainVerification: {
    method: 'PUT',
    path: '/emulator/domains/{domain}/verification',
    summary: 'Set the outcome of the next verifications of a domain (verified, or failed with a reason); it stays until changed',
    tag: 'Domains',
    auth: 'none',
    params: DomainParams,
    body: SetVerificationBody,
    response: dataResponse(VerificationSetting),
    errors: [404, 415],
  },
});
