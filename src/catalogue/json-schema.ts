import { z } from 'zod';
import type { AvailableProduct } from '../products/kit/index.ts';

/** A product's schemas as JSON Schema (draft 2020-12), for the 402 bazaar block, MCP and discovery documents. */
export type JsonSchema = Record<string, unknown>;

const inputSchemas = new WeakMap<AvailableProduct, JsonSchema>();

/**
 * The product's input as JSON Schema (draft 2020-12, input side of transforms), without `$schema`.
 * Never throws: types JSON Schema cannot express become `{}`.
 */
export function inputJsonSchema(product: AvailableProduct): JsonSchema {
  let schema = inputSchemas.get(product);
  if (!schema) {
    schema = stripDialect(z.toJSONSchema(product.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
    inputSchemas.set(product, schema);
  }
  return structuredClone(schema);
}

/** The declared output schema, without `$schema`, or undefined. */
export function outputJsonSchema(product: AvailableProduct): JsonSchema | undefined {
  return product.outputSchema ? stripDialect(structuredClone(product.outputSchema)) : undefined;
}

function stripDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}
