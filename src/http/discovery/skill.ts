import { createHash } from 'node:crypto';
import type { SitePages } from '../../site/pages/site-pages.ts';

/**
 * The Agent Skill (https://agentskills.io/specification): `content/SKILL.md` with YAML frontmatter
 * `name` (the skill's directory name) and `description` (what it does and when to use it).
 * Published at `/.well-known/agent-skills/nerkh-rates/SKILL.md` (alias `/SKILL.md`) and listed in
 * the discovery index `/.well-known/agent-skills/index.json` (Agent Skills Discovery RFC v0.2.0,
 * cloudflare/agent-skills-discovery-rfc) with the SHA-256 digest of the exact bytes served.
 */

const skillName = 'nerkh-rates';
export const skillPath = `/.well-known/agent-skills/${skillName}/SKILL.md`;
export const skillIndexPath = '/.well-known/agent-skills/index.json';
const skillIndexSchema = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

interface PublishedSkill {
  /** The SKILL.md bytes, served unchanged at both paths. */
  bytes: Buffer;
  index: {
    $schema: string;
    skills: { name: string; type: 'skill-md'; description: string; url: string; digest: string }[];
  };
}

export function publishSkill(pages: SitePages, publicUrl: string): PublishedSkill {
  const text = pages.fill('skill');
  const frontmatter = readFrontmatter(text);
  if (frontmatter.name !== skillName) {
    throw new Error(`content/SKILL.md names the skill "${frontmatter.name}", expected "${skillName}"`);
  }
  const description = frontmatter.description;
  if (description === undefined) throw new Error('content/SKILL.md has no description');
  const bytes = Buffer.from(text, 'utf8');
  return {
    bytes,
    index: {
      $schema: skillIndexSchema,
      skills: [
        {
          name: skillName,
          type: 'skill-md',
          description,
          url: `${publicUrl}${skillPath}`,
          digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        },
      ],
    },
  };
}

/**
 * Reads the frontmatter's top-level `key: value` lines. The file is ours and uses plain one-line
 * scalars only; tests parse it with a full YAML parser to keep that true.
 */
function readFrontmatter(text: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match?.[1]) throw new Error('SKILL.md must start with YAML frontmatter between --- lines');
  const fields: Record<string, string> = {};
  for (const line of match[1].split('\n')) {
    const field = /^([a-z-]+):\s+(.+)$/.exec(line);
    if (field?.[1] && field[2]) fields[field[1]] = field[2].trim();
  }
  return fields;
}
