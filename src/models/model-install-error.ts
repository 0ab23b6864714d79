/** A model could not be installed; the CLI prints its message as one line. */
export class ModelInstallError extends Error {}

/** The most a model file from the index, or a model archive from a URL or unpacked, may be (today's largest: 60 MB). */
export const MAX_MODEL_FILE_BYTES = 1024 * 1024 * 1024;
