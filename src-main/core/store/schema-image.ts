import { gunzipSync } from 'node:zlib';
import { SCHEMA_IMAGE } from './schema-image.generated';

/**
 * A new store starts from an image of an empty database with the first `version` migrations applied
 * (schema_migrations left empty: the versions are recorded when the image is used) instead of
 * running each migration: about 30 ms less on every first start, which each file of a test runner
 * pays. Migrations after the image's version still run as usual, so a stale image costs time, never
 * correctness; a test holds that the image is what the migrations make and that it is current
 * (test/unit/core/store/schema-image.test.ts, which writes it with UPDATE_SCHEMA_IMAGE=1).
 */
export interface SchemaImage {
  version: number;
  /** The database file's bytes, gzipped, in base64. */
  gzipBase64: string;
}

export const schemaImage: SchemaImage = SCHEMA_IMAGE;

/** The image's database bytes. */
export function schemaImageBytes(image: SchemaImage): Buffer {
  return gunzipSync(Buffer.from(image.gzipBase64, 'base64'));
}
