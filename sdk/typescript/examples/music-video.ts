/*
 * A TypeScript worker for seed 001's MUSIC_VIDEO pipeline, every stage of it: generate-scenes adds
 * the scenes to render (addWorkItems, through the worker's own request) and completes with their
 * count, render-scenes renders each scene, compose puts the clips together. The renders are stand-ins
 * (the S3 keys a real renderer would upload); test/e2e/worker-sdk.test.ts runs it as a process.
 *
 * node dist/sdk/typescript/examples/music-video.js, with ARTISSIST_URL and ARTISSIST_TOKEN (role worker).
 */
import { Worker } from '../src/index';

const worker = new Worker({ url: process.env.ARTISSIST_URL!, token: process.env.ARTISSIST_TOKEN!, slots: 2, minReportMs: 200 });
const SCENES = Number(process.env.SCENES ?? 3);

worker.stage('MUSIC_VIDEO', 'generate-scenes', async (work) => {
  const scenes = Array.from({ length: SCENES }, (_, n) => ({ prompt: `Scene ${n + 1} of ${work.inputs.prompt ?? 'the video'}` }));
  await worker.request(
    'mutation($jobId: ID!, $items: [JSONObject!]!) { addWorkItems(jobId: $jobId, stage: "render-scenes", items: $items) { jobId } }',
    { jobId: work.jobId, items: scenes },
  );
  return { sceneCount: scenes.length };
});

worker.stage('MUSIC_VIDEO', 'render-scenes', async (work) => {
  work.progress(0.5);
  // A render that is cancelled stops here: nothing it would return is reported.
  await new Promise((resolve) => setTimeout(resolve, 50));
  work.signal.throwIfAborted();
  return { videoClip: `tenants/${work.tenantId}/video/${work.jobId}/${work.sequence}.mp4` };
});

worker.stage('MUSIC_VIDEO', 'compose', async (work) => ({ video: `tenants/${work.tenantId}/video/${work.jobId}.mp4` }));

worker.run().then(
  () => console.log(JSON.stringify({ event: 'exited', completed: worker.completed })),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
console.log(JSON.stringify({ event: 'ready', pid: process.pid }));
