// `node --import ./test/desktop/fake-electron/register.mjs out/main/desktop.js`: runs the built
// desktop main process under plain Node, with `electron` resolved to electron.mjs beside this file.
import { register } from 'node:module';

register('./loader.mjs', import.meta.url);
