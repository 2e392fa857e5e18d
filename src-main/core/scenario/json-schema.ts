import { z } from 'zod';
import { Scenario } from '../../../src-shared/scenario/format';

/** The published JSON Schema of scenario files (schemas/scenario.schema.json), generated from the zod schema. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Scenario, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...schema, $id: 'https://mailyard.dev/schemas/scenario.schema.json' };
}
