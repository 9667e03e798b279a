/** Lets `import` load .ts files from here on; `dir` is where the project's tsconfig.json is looked for. */
export function registerTypeScript(dir: string): Promise<void>;
