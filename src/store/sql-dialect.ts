// The two SQL databases the store runs on; migrations and a few queries differ by it.
export type SqlDialect = 'sqlite' | 'postgres';
