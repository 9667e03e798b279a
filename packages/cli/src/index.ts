export { buildProgram } from './program.js';
export { CliError, describeFailure } from './errors.js';
export { loadProject, PROJECT_FILE } from './project.js';
export { lockDataDir } from './data-lock.js';
export { pendingMigrations } from './migration-status.js';
export { scaffoldPlugin, type ScaffoldResult } from './scaffold/scaffold.js';
export { namesOf, PluginName, type PluginNames } from './scaffold/names.js';
export { scaffoldProject, type NewProject, type NewProjectOptions } from './scaffold/project/scaffold.js';
export { CATALOGUE, type CataloguePlugin } from './scaffold/project/catalogue.js';
