// The one-way flow of the code, checked by `npm test` (npm run check:boundaries):
//   entry (cli, server) → app → src/http → services → engines | formats | markup | store, src/lib anywhere.
// It reads the compiled JavaScript (dist/src): TypeScript 7 has no compiler API for the cruiser to parse .ts with, so
// type-only imports (erased at compile time) are not checked; every import that runs is.
const SERVICES = '^dist/src/(accounts|admin|customization|detect|documents|models|ops|translate|voice|write)/';

/** A rule that forbids `from` to import anything of the app except the paths in `allowed`. */
function onlyImports(name, from, allowed, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: from },
    to: { path: '^dist/src/', pathNot: [from, ...allowed] },
  };
}

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles hide which part owns what.', from: {}, to: { circular: true } },
    onlyImports('lib-is-a-leaf', '^dist/src/lib/', [], 'src/lib is shared by every layer and depends on none of them.'),
    onlyImports('engines-know-only-engines', '^dist/src/engines/', ['^dist/src/lib/'],
      'Engines never see HTTP, the database or the services that call them.'),
    onlyImports('store-knows-only-store', '^dist/src/store/', ['^dist/src/lib/'],
      'Repositories and migrations never call services, engines or HTTP.'),
    onlyImports('jobs-know-only-jobs', '^dist/src/jobs/', ['^dist/src/lib/'],
      'The job system runs any kind of job through its queue interface; the job kinds bring their tables and handlers.'),
    onlyImports('markup-knows-only-markup', '^dist/src/markup/', ['^dist/src/lib/'],
      'The markup layer is a library used by the translation core and the formats.'),
    onlyImports('formats-know-no-services', '^dist/src/documents/formats/', ['^dist/src/lib/', '^dist/src/markup/', '^dist/src/documents/ocr/'],
      'A document format reads and writes files; it never sees HTTP, the database or the job queue.'),
    {
      name: 'services-never-import-http',
      comment: 'Services return domain results and throw domain errors; only src/http knows statuses and wire bodies.',
      severity: 'error',
      from: { path: SERVICES },
      to: { path: '^dist/src/(http/|app\\.js|server\\.js|cli\\.js|services\\.js)' },
    },
    {
      name: 'http-goes-through-services',
      comment: 'Routes call services; they never reach into engines or the store themselves.',
      severity: 'error',
      from: { path: '^dist/src/http/' },
      to: { path: '^dist/src/(engines|store)/' },
    },
    {
      name: 'fastify-only-in-http',
      comment: 'Only the HTTP layer and the process entry know the web framework.',
      severity: 'error',
      from: { path: '^dist/src/', pathNot: '^dist/src/(http/|app\\.js|server\\.js)' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/|fastify-plugin)' },
    },
    {
      name: 'entry-points-are-not-imported',
      comment: 'The CLI and the server process are the outermost layer.',
      severity: 'error',
      from: { path: '^dist/src/', pathNot: '^dist/src/cli\\.js' },
      to: { path: '^dist/src/(cli|server)\\.js$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    moduleSystems: ['es6'],
  },
};
