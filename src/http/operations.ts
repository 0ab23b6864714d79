// What the API documentation says of each operation: its tag (the group it is listed under in /docs), a stable
// operationId for client generators, and a one-line summary. The OpenAPI plugin attaches these to every route as it
// is registered and refuses a route missing here, so a new route cannot reach the document undescribed.

/** The groups of /docs, in the order they are listed. */
export const TAGS = [
  { name: 'translation', description: 'Translate text, detect its language, and list the supported languages.' },
  { name: 'documents', description: 'Translate whole documents (upload, poll the status, download the result).' },
  { name: 'write', description: 'Improve text in one language: rephrase it or correct it.' },
  { name: 'glossaries', description: 'Glossaries: term pairs applied to translations (v3 multilingual, v2 single-pair).' },
  { name: 'style rules', description: 'Style rules and custom instructions applied to translations.' },
  { name: 'translation memories', description: 'Translation memories: import, export and reuse of earlier translations.' },
  { name: 'voice', description: 'Real-time speech translation and its spoken-term lists.' },
  { name: 'usage', description: 'Characters used and left in the billing period.' },
  { name: 'admin', description: "An organization's developer keys and usage analytics (admin key only)." },
  { name: 'operations', description: 'Health probes and Prometheus metrics for operators.' },
  { name: 'web page', description: 'The browser page served at / and its session check.' },
  { name: 'libretranslate', description: "LibreTranslate's API, for applications that only speak it (on with TOLK_LIBRETRANSLATE=true)." },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

interface Operation {
  tag: Tag;
  operationId: string;
  summary: string;
}

const op = (tag: Tag, operationId: string, summary: string): Operation => ({ tag, operationId, summary });

/** Keyed by method and URL as Fastify registers them (`:param`). */
export const OPERATIONS: Record<string, Operation> = {
  'POST /v2/translate': op('translation', 'translateText', 'Translate text'),
  'POST /v3/detect/language': op('translation', 'detectLanguage', 'Detect the language of texts'),
  'GET /v2/languages': op('translation', 'getLanguages', 'List source or target languages'),
  'POST /v2/languages': op('translation', 'getLanguagesPost', 'List source or target languages (form or JSON body)'),
  'GET /v3/languages': op('translation', 'getLanguagesV3', 'List languages with the features each product supports'),
  'GET /v3/languages/resources': op('translation', 'getLanguageResources', 'List the products and features languages are described for'),

  'POST /v2/document': op('documents', 'translateDocument', 'Upload a document to translate'),
  'POST /v2/document/:document_id': op('documents', 'getDocumentStatus', 'Get the status of a document translation'),
  'POST /v2/document/:document_id/result': op('documents', 'downloadDocument', 'Download the translated document'),

  'POST /v2/write/rephrase': op('write', 'rephraseText', 'Rephrase text, optionally in a style or tone'),
  'POST /v2/write/correct': op('write', 'correctText', 'Correct spelling and grammar'),

  'POST /v3/glossaries': op('glossaries', 'createMultilingualGlossary', 'Create a glossary with one or more dictionaries'),
  'GET /v3/glossaries': op('glossaries', 'listMultilingualGlossaries', 'List glossaries'),
  'GET /v3/glossaries/:glossary_id': op('glossaries', 'getMultilingualGlossary', "Get a glossary's details"),
  'PATCH /v3/glossaries/:glossary_id': op('glossaries', 'patchMultilingualGlossary', 'Rename a glossary or merge entries into its dictionaries'),
  'DELETE /v3/glossaries/:glossary_id': op('glossaries', 'deleteMultilingualGlossary', 'Delete a glossary'),
  'PUT /v3/glossaries/:glossary_id/dictionaries': op('glossaries', 'replaceMultilingualGlossaryDictionary', 'Replace the dictionary of one language pair'),
  'DELETE /v3/glossaries/:glossary_id/dictionaries': op('glossaries', 'deleteMultilingualGlossaryDictionary', 'Delete the dictionary of one language pair'),
  'GET /v3/glossaries/:glossary_id/entries': op('glossaries', 'getMultilingualGlossaryEntries', 'Get the entries of a dictionary'),
  'POST /v2/glossaries': op('glossaries', 'createGlossary', 'Create a single-pair glossary (v2)'),
  'GET /v2/glossaries': op('glossaries', 'listGlossaries', 'List single-pair glossaries (v2)'),
  'GET /v2/glossaries/:glossary_id': op('glossaries', 'getGlossary', "Get a single-pair glossary's details (v2)"),
  'DELETE /v2/glossaries/:glossary_id': op('glossaries', 'deleteGlossary', 'Delete a single-pair glossary (v2)'),
  'GET /v2/glossaries/:glossary_id/entries': op('glossaries', 'getGlossaryEntries', 'Get the entries of a single-pair glossary (v2)'),
  'GET /v2/glossary-language-pairs': op('glossaries', 'listGlossaryLanguagePairs', 'List the language pairs glossaries support'),

  'GET /v3/style_rules': op('style rules', 'listStyleRules', 'List style rules'),
  'POST /v3/style_rules': op('style rules', 'createStyleRule', 'Create a style rule'),
  'GET /v3/style_rules/:style_id': op('style rules', 'getStyleRule', 'Get a style rule'),
  'PATCH /v3/style_rules/:style_id': op('style rules', 'updateStyleRule', 'Rename a style rule'),
  'DELETE /v3/style_rules/:style_id': op('style rules', 'deleteStyleRule', 'Delete a style rule'),
  'PUT /v3/style_rules/:style_id/configured_rules': op('style rules', 'replaceConfiguredRules', 'Replace the configured rules of a style rule'),
  'POST /v3/style_rules/:style_id/custom_instructions': op('style rules', 'createCustomInstruction', 'Add a custom instruction'),
  'GET /v3/style_rules/:style_id/custom_instructions/:instruction_id': op('style rules', 'getCustomInstruction', 'Get a custom instruction'),
  'PUT /v3/style_rules/:style_id/custom_instructions/:instruction_id': op('style rules', 'updateCustomInstruction', 'Replace a custom instruction'),
  'DELETE /v3/style_rules/:style_id/custom_instructions/:instruction_id': op('style rules', 'deleteCustomInstruction', 'Delete a custom instruction'),

  'GET /v3/translation_memories': op('translation memories', 'listTranslationMemories', 'List translation memories'),
  'GET /v3/translation_memories/:id': op('translation memories', 'getTranslationMemory', 'Get a translation memory'),
  'DELETE /v3/translation_memories/:id': op('translation memories', 'deleteTranslationMemory', 'Delete a translation memory'),
  'GET /v3/translation_memories/:id/segments': op('translation memories', 'listTranslationMemorySegments', 'List the segments of a translation memory'),
  'POST /v3/translation_memories/import': op('translation memories', 'importTranslationMemory', 'Start importing a translation memory (TMX)'),
  'POST /v3/translation_memories/:id/export': op('translation memories', 'exportTranslationMemory', 'Start exporting a translation memory'),
  'GET /v3/translation_memories/jobs/:job_id': op('translation memories', 'getTranslationMemoryJob', 'Get the status of an import or export job'),
  'GET /v3/translation_memories/jobs/:job_id/download': op('translation memories', 'downloadTranslationMemoryExport', 'Download an exported translation memory'),
  'PUT /v3/translation_memories/jobs/:job_id/upload': op('translation memories', 'uploadTranslationMemoryFile', 'Upload the file of an import job'),

  'POST /v3/voice/realtime': op('voice', 'createVoiceSession', 'Open a real-time voice translation session'),
  'GET /v3/voice/realtime': op('voice', 'reconnectVoiceSession', 'Get a new token to reconnect to a voice session'),
  'GET /v3/voice/realtime/connect': op('voice', 'connectVoiceStream', 'Voice stream (WebSocket)'),
  'POST /v3/spoken-terms': op('voice', 'createSpokenTerms', 'Create a spoken-term list'),
  'GET /v3/spoken-terms': op('voice', 'listSpokenTerms', 'List spoken-term lists'),
  'GET /v3/spoken-terms/:spoken_terms_id': op('voice', 'getSpokenTerms', 'Get a spoken-term list'),
  'DELETE /v3/spoken-terms/:spoken_terms_id': op('voice', 'deleteSpokenTerms', 'Delete a spoken-term list'),
  'GET /v3/spoken-terms/:spoken_terms_id/entries': op('voice', 'getSpokenTermsEntries', 'Get the entries of a spoken-term list'),
  'PUT /v3/spoken-terms/:spoken_terms_id/term-lists': op('voice', 'replaceSpokenTermsLists', 'Replace the term lists of a spoken-term list'),

  'GET /v2/usage': op('usage', 'getUsage', 'Get the usage and limits of the billing period'),
  'POST /v2/usage': op('usage', 'getUsagePost', 'Get the usage and limits of the billing period (POST)'),

  'POST /v2/admin/developer-keys': op('admin', 'createDeveloperKey', 'Create a developer key'),
  'GET /v2/admin/developer-keys': op('admin', 'listDeveloperKeys', 'List developer keys'),
  'PUT /v2/admin/developer-keys/deactivate': op('admin', 'deactivateDeveloperKey', 'Deactivate a developer key (permanent)'),
  'PUT /v2/admin/developer-keys/label': op('admin', 'renameDeveloperKey', 'Rename a developer key'),
  'PUT /v2/admin/developer-keys/limits': op('admin', 'setDeveloperKeyLimits', "Set a developer key's usage limits"),
  'PUT /v2/admin/developer-keys/scopes': op('admin', 'setDeveloperKeyScopes', "Set a developer key's scopes"),
  'GET /v2/admin/analytics': op('admin', 'getUsageAnalytics', 'Get usage by key or reporting tag, per day or in total'),
  'GET /v2/admin/analytics/custom-tags': op('admin', 'getCustomTagAnalytics', 'Get usage per reporting tag'),

  'GET /health/live': op('operations', 'getLiveness', 'Liveness: the process answers'),
  'GET /health/ready': op('operations', 'getReadiness', 'Readiness: the store and engines can serve requests'),
  'GET /metrics': op('operations', 'getMetrics', 'Prometheus metrics'),

  'GET /': op('web page', 'getWebPage', 'The web page'),
  'GET /web/:name': op('web page', 'getWebAsset', "A file of the web page (script, style sheet)"),
  'GET /web/api/session': op('web page', 'getWebSession', "Check a key and get the page's session (account, plan, features)"),

  'POST /translate': op('libretranslate', 'libreTranslate', 'LibreTranslate: translate text'),
  'POST /detect': op('libretranslate', 'libreDetect', 'LibreTranslate: detect the language of a text'),
  'GET /languages': op('libretranslate', 'libreLanguages', 'LibreTranslate: list languages and their targets'),
  'GET /frontend/settings': op('libretranslate', 'libreFrontendSettings', "LibreTranslate: the server's settings for front ends"),
  'POST /translate_file': op('libretranslate', 'libreTranslateFile', 'LibreTranslate: translate a file'),
  'GET /download_file/:document_id/:filename': op('libretranslate', 'libreDownloadFile', 'LibreTranslate: download a translated file (signed URL)'),
  'GET /spec': op('libretranslate', 'libreSpec', "LibreTranslate: this API's OpenAPI description"),
  'GET /health': op('libretranslate', 'libreHealth', 'LibreTranslate: liveness ({"status": "ok"})'),
  'POST /suggest': op('libretranslate', 'libreSuggest', 'LibreTranslate: suggestions (disabled on Tolk: 403)'),
};
