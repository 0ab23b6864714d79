/** A model could not be installed; the CLI prints its message as one line. */
export class ModelInstallError extends Error {}
