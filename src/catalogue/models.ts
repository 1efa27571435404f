// The model catalogue is data of the inference products (src/products/inference/models.ts),
// served by GET /api/v1/models; this path stays for the code that imports it from the catalogue.
export { INFERENCE_MODELS, INFERENCE_MODEL_IDS, type InferenceModel, type InferenceModelId } from '../products/inference/models.ts';
