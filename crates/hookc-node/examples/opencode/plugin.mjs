/**
 * An OpenCode plugin that guards tool calls with a hookc policy: this
 * directory's guard.yaml, compiled once when OpenCode loads the plugin.
 *
 * OpenCode's plugin API (@opencode-ai/plugin): a plugin module's exports
 * are plugin functions, each called once with `{project, client, $,
 * directory, worktree}` and returning hooks; `"tool.execute.before"` is
 * called with `(input, output)`, `input` being `{tool, sessionID, callID}`
 * and `output.args` the tool's arguments (bash `{command, description,
 * timeout}`, read `{filePath, offset, limit}`, edit `{filePath, oldString,
 * newString, replaceAll}`, write `{filePath, content}`, ...). An Error it
 * throws stops the call, its message the tool's error.
 *
 * Why `policy.evaluate` and not `policy.hook`: hookc has no host profile for
 * OpenCode, and translating its calls into Claude Code's payloads (tool and
 * argument names, and back for a rewrite) would make a policy guard names
 * OpenCode never sends. So the policy is written against OpenCode's own
 * names: opencode.profile.yaml declares the `tool.execute.before` event (its
 * context is the hook's input, `args`, and the plugin's `directory`) and the
 * two things this hook can do, `deny` and `rewrite`, as the guide says a
 * policy for a host without a profile is written (docs/src/hosts/index.md).
 * There is no `ask`: OpenCode asks through its own `permission` settings.
 *
 * - deny: throw `Error("REASON [hook ID]")`, so the model sees which hook.
 * - rewrite: the patched `args` are written into `output.args` in place.
 *   OpenCode runs the tool with the arguments object it handed the hook
 *   (`{ args }` in OpenCode's packages/opencode/src/session/tools.ts), so assigning a
 *   new object to `output.args` is lost there; changing that object is not.
 * - Anything the evaluation throws propagates, which OpenCode also treats
 *   as a refusal: the guard fails closed.
 *
 * Install: copy this directory under `.opencode/plugin/` (or name the file
 * in opencode.json's `plugin`) with the `hookc` package installed, and
 * import `hookc` instead of the relative path below, which is the package
 * itself when the example is run from its repository.
 */
import hookc from '../../index.js';
import { fileURLToPath } from 'node:url';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
// The profile first: it declares the event and action types the guard uses.
const policy = hookc.compile([here('opencode.profile.yaml'), here('guard.yaml')]);

// The module's only export: OpenCode calls every export as a plugin.
export const HookcGuard = async ({ directory }) => ({
  'tool.execute.before': async (input, output) => {
    const { tool, sessionID, callID } = input;
    const result = policy.evaluate('tool.execute.before', {
      tool, sessionID, callID, directory, args: output.args,
    });
    if (result?.action?.type === 'deny') {
      throw new Error(`${result.action.reason} [hook ${result.hook}]`);
    }
    const args = result?.patched?.args;
    if (args) {
      for (const key of Object.keys(output.args)) delete output.args[key];
      Object.assign(output.args, args);
    }
  },
});
