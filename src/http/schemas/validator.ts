// Fastify's request validator, but a schema marked `x-validated-by: handler` only documents: its parameters are checked
// by the route's own parser, whose error messages the clients depend on (a schema failure would word them otherwise).
import ajvCompiler, { type ValidatorFactory } from '@fastify/ajv-compiler';

/** What Fastify hands a validator compiler at run time (the package's types name only the schema). */
type RouteSchema = { schema?: Record<string, unknown>; httpPart?: string };
type Compiler = (route: RouteSchema) => (data: unknown) => unknown;

const defaultFactory = ajvCompiler() as unknown as (externalSchemas: unknown, options: unknown) => Compiler;
const accept = () => true;

export const buildValidator = ((externalSchemas: unknown, options: unknown): Compiler => {
  const compile = defaultFactory(externalSchemas, options);
  return (route) => (route.schema?.['x-validated-by'] === 'handler' ? accept : compile(route));
}) as unknown as ValidatorFactory;
