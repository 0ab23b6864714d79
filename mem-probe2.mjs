const mb = () => Math.round(process.memoryUsage().rss/2**20);
const h = () => Math.round(process.memoryUsage().heapUsed/2**20);
console.log('start', mb(), h());
const mod = await import('eld'); global.gc(); console.log('eld import', mb(), h());
const i = mod.eld.newInstance(); await i.load('small'); global.gc(); console.log('eld small', mb(), h());
const { NgramModel } = await import('./dist/src/detect/ngram-model.js'); const m = NgramModel.load(); global.gc(); console.log('ngram', mb(), h());
await import('./dist/src/app.js'); global.gc(); console.log('app', mb(), h());
await import('./dist/src/services.js'); global.gc(); console.log('services', mb(), h());
