export { packageBuild as default } from '../../tsup.base.js';
