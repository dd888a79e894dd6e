import type { IdPrefix } from '../common/ids';
import { reviewStages } from '../job/job.kinds';
import { MUSIC_VIDEO, THREE_D_CHARACTER } from '../pipelines/pipelines.kinds';

/** A fixed, valid id (`<prefix>_01J0DEM0…<n>`), so loading the demo twice finds what exists. */
export const demoId = (prefix: IdPrefix, n: number) => `${prefix}_01J0DEM0${String(n).padStart(18, '0')}`;

export const DEMO_PROJECTS = [
  {
    n: 1,
    title: 'Harbour at Dusk',
    medium: 'oil',
    client: 'Port Authority',
    deadline: '2027-03-01',
    budget: { amount: 4800, currency: 'EUR' },
    status: 'production' as const,
    briefs: 3,
    milestones: [
      { n: 1, name: 'Underpainting', due: '2026-12-01', criteria: ['values blocked in'], status: 'complete' as const },
      { n: 2, name: 'Glazing', due: '2027-01-15', criteria: ['three glazes', 'warm light on water'], status: 'in_progress' as const },
      { n: 3, name: 'Varnish', due: '2027-02-20', criteria: ['dry to the touch'], status: 'pending' as const },
    ],
    logs: [
      {
        n: 1,
        rawText: 'Toned the canvas with burnt sienna and blocked in the harbour wall.',
        materials: ['burnt sienna', 'linseed oil', 'canvas'],
        timeSpentMinutes: 95,
        confirm: true,
      },
      {
        n: 2,
        rawText: 'First glaze of ultramarine over the water, two hours.',
        materials: ['ultramarine', 'linseed oil'],
        timeSpentMinutes: 120,
        confirm: true,
      },
      {
        n: 3,
        rawText: 'Reworked the boats with titanium white and cadmium yellow.',
        materials: ['titanium white', 'cadmium yellow'],
        timeSpentMinutes: 75,
        confirm: false,
      },
      {
        n: 4,
        rawText: 'Sky glaze, ultramarine and a touch of alizarin.',
        materials: ['ultramarine', 'alizarin crimson'],
        timeSpentMinutes: 60,
        confirm: false,
      },
    ],
    assets: [
      { n: 1, fileName: 'harbour-reference.svg', alt: 'Reference sketch of the harbour at dusk', log: 1 },
      { n: 2, fileName: 'glaze-progress.svg', alt: 'The painting after the first glaze', log: 2 },
    ],
  },
  {
    n: 2,
    title: 'Robot Mascot 3D',
    medium: 'digital',
    client: 'Night Shift Games',
    status: 'planning' as const,
    briefs: 1,
    milestones: [{ n: 4, name: 'Concept approved', due: '2026-12-15', criteria: ['three silhouettes'], status: 'pending' as const }],
    logs: [
      {
        n: 5,
        rawText: 'Sketched three robot silhouettes in Procreate.',
        materials: ['procreate', 'ipad'],
        timeSpentMinutes: 45,
        confirm: true,
      },
    ],
    assets: [],
  },
  {
    n: 3,
    title: 'Album Cover: Night Drive',
    medium: 'digital',
    status: 'complete' as const,
    briefs: 2,
    milestones: [],
    logs: [{ n: 6, rawText: 'Final colour pass and export at 3000 px.', materials: ['photoshop'], timeSpentMinutes: 50, confirm: true }],
    assets: [],
  },
];

export const DEMO_INSPIRATION = [
  { n: 1, text: 'Turner’s harbour skies: warm light, cold water.', tags: ['light', 'water'], project: 1 },
  { n: 2, text: 'Retro robots from 1950s tin toys.', tags: ['robots', 'retro'], project: 2 },
  { n: 3, text: 'Neon on wet asphalt.', tags: ['night', 'light'], project: undefined },
];

/**
 * Jobs of the three seed kinds. The simulator drives them; 3D_CHARACTER runs its declared
 * pipeline (no steps given), so it pauses for review where its declaration says (REVIEW_STEP). The
 * kinds are named by the values their declarations return, so this module declares them first.
 */
export const DEMO_JOBS = [
  {
    n: 1,
    key: 'demo-3d-character',
    kind: THREE_D_CHARACTER,
    project: 2,
    steps: undefined,
    inputs: { prompt: 'a friendly tin robot mascot' },
  },
  {
    n: 2,
    key: 'demo-music-video',
    kind: MUSIC_VIDEO,
    project: 3,
    // The declared pipeline of seed 001 (no steps given): generate-scenes, then the scenes
    // rendered in parallel as work items, then compose. Its inputs are typed S3 keys.
    steps: undefined,
    inputs: {
      characterImage: 'tenants/demo/music/character.png',
      productImage: 'tenants/demo/music/headphones.png',
      audioBackingTrack: 'tenants/demo/music/night-drive.mp3',
      prompt: 'a night drive through neon streets',
    },
  },
  {
    n: 3,
    key: 'demo-photo-edit',
    kind: 'PHOTO_EDIT',
    project: 1,
    steps: ['analyze', 'edit', 'export'],
    inputs: { photo: 'harbour.jpg', preset: 'warm-dusk' },
  },
];

/** What the demo's music videos' scenes show: 6 to 12 of them, every third one lip-synced. */
export const SCENE_PROMPTS = [
  'the car pulls out of a rain-soaked garage',
  'neon signs smear across the windshield',
  'close-up: the singer mouths the first chorus',
  'a tunnel of orange sodium lights',
  'the headphones glow on the passenger seat',
  'overhead shot of the empty motorway',
  'the singer laughs at a red light',
  'a pink sunrise over the harbour cranes',
  'slow motion through a car wash',
  'the city skyline in the rear-view mirror',
  'the last chorus under a flickering bridge lamp',
  'the car parks by the sea; the screen fades',
];

/**
 * The step of a 3D_CHARACTER job that waits for a person's approval: the stage its declaration
 * (src/pipelines/pipelines.kinds.ts) marks for review, read from there so that the demo cannot say otherwise.
 */
export const REVIEW_STEP: string = onlyReviewStage(THREE_D_CHARACTER);

function onlyReviewStage(kind: string): string {
  const stages = reviewStages(kind);
  if (stages.length !== 1) throw new Error(`The demo expects ${kind} to declare one review stage; it declares ${stages.length}.`);
  return stages[0];
}

/** A tiny SVG to stand in for an uploaded file. */
export const demoSvg = (label: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="200"><rect width="320" height="200" fill="#1d3557"/><text x="20" y="110" fill="#f1faee" font-size="22">${label}</text></svg>`;
