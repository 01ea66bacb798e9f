/**
 * Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`) callbacks that guard
 * tool calls with a hookc policy: this directory's guard.yaml, a Claude Code
 * guard, compiled once when the module loads.
 *
 *   import { hooks, createCanUseTool } from './hooks.mjs';
 *   query({ prompt, options: { hooks, canUseTool: createCanUseTool(askUser) } });
 *
 * - `hookCallback(input, toolUseID, { signal })`: a hook callback. The SDK
 *   gives it the payload Claude Code gives a command hook (`hook_event_name`,
 *   `session_id`, `cwd`, `tool_name`, `tool_input`, ...) and reads the same
 *   answer object (`hookSpecificOutput.permissionDecision`,
 *   `permissionDecisionReason`, `updatedInput`, `additionalContext`; `{}`
 *   for no decision), so it returns what `hookc hook --host claude-code`
 *   prints: `policy.hook('claude-code', input).output`, `{}` when it prints
 *   nothing. That command's failure answer is exit 2 with the reason on
 *   standard error, which a callback cannot say: it is spelled as the deny
 *   it stands for, so a guard that cannot answer does not let the call
 *   through. `hooks` registers it for PreToolUse, which runs for every call.
 * - `createCanUseTool(askUser)`: a `canUseTool(toolName, input, { signal,
 *   suggestions })`. The SDK calls it where Claude Code would show its
 *   permission dialog, which is where Claude Code runs its PermissionRequest
 *   hooks; so it evaluates the policy's PermissionRequest hooks on the
 *   payload Claude Code would send, and that event's answer,
 *   `hookSpecificOutput.decision`, is already canUseTool's result:
 *   `{behavior: 'allow', updatedInput}` or `{behavior: 'deny', message}`.
 *   When no hook decides (or one says ask or defer), `askUser` decides, with
 *   the same arguments; without one the call is denied (no one to ask).
 *
 * Import `hookc` instead of the relative path below in a copy outside the
 * package; the relative path is the package itself in its repository.
 */
import hookc from '../../index.js';
import { fileURLToPath } from 'node:url';

const policy = hookc.compile(fileURLToPath(new URL('guard.yaml', import.meta.url)));

// What `hookc hook` answers to `payload`; a payload it cannot take as JSON
// (an exception here) as its exit 2, Claude Code's block, rather than an
// exception the host may count as a failed hook and go on.
function hookOf(payload) {
  try {
    return policy.hook('claude-code', payload);
  } catch (error) {
    return { exitCode: 2, stderr: `hookc: ${error.message}`, output: null };
  }
}

// The evaluation is synchronous and short, so `signal` is not watched.
export async function hookCallback(input, _toolUseID, _options) {
  const reply = hookOf(input);
  if (reply.exitCode !== 2) return reply.output ?? {};
  const reason = reply.stderr.trim();
  return input?.hook_event_name === 'PreToolUse'
    ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }
    : { decision: 'block', reason };
}

export const hooks = { PreToolUse: [{ hooks: [hookCallback] }] };

const nobodyToAsk = async (toolName) => ({
  behavior: 'deny',
  message: `no rule of the policy permits this ${toolName} call, and there is no one to ask`,
});

// `cwd`: the SDK's `options.cwd`, which defaults to the process's.
export function createCanUseTool(askUser = nobodyToAsk, { cwd = process.cwd() } = {}) {
  return async (toolName, input, options = {}) => {
    const reply = hookOf({
      hook_event_name: 'PermissionRequest', cwd, tool_name: toolName, tool_input: input,
      ...(options.suggestions ? { permission_suggestions: options.suggestions } : {}),
    });
    if (reply.exitCode === 2) return { behavior: 'deny', message: reply.stderr.trim() };
    const decision = reply.output?.hookSpecificOutput?.decision;
    if (!decision) return askUser(toolName, input, options);
    // Some SDK versions require `updatedInput` with an allow: the input as it came when no hook rewrote it.
    return decision.behavior === 'allow' ? { updatedInput: input, ...decision } : decision;
  };
}
