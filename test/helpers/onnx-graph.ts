// A small ONNX graph builder for the generated test models (sherpa-whisper-graphs.ts): nodes, float32 initializers
// from a seeded generator, int64/float constants, and the protobuf encoding (onnx-proto's generated onnx.proto code).
import onnxProto from 'onnx-proto';
import { prng } from './prng.js';

const { onnx } = onnxProto;
type AttributeProto = onnxProto.onnx.IAttributeProto;
type NodeProto = onnxProto.onnx.INodeProto;
type TensorProto = onnxProto.onnx.ITensorProto;
type ValueInfoProto = onnxProto.onnx.IValueInfoProto;

export const FLOAT = 1;
export const INT64 = 7;

/** A node attribute: an integer, a list of integers, or a float. */
export type Attr = { i: number } | { ints: number[] } | { f: number };
export const int = (i: number): Attr => ({ i });
export const ints = (v: number[]): Attr => ({ ints: v });
export const float = (f: number): Attr => ({ f });

function attribute(name: string, a: Attr): AttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if ('i' in a) return { name, type: T.INT, i: a.i };
  if ('ints' in a) return { name, type: T.INTS, ints: a.ints };
  return { name, type: T.FLOAT, f: a.f };
}

function valueInfo(name: string, elemType: number, dims: (number | string)[]): ValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

const bytesOf = (a: Float32Array | BigInt64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export class Graph {
  private readonly nodes: NodeProto[] = [];
  private readonly initializers: TensorProto[] = [];
  private readonly inputs: ValueInfoProto[] = [];
  private readonly outputs: ValueInfoProto[] = [];
  private readonly constants = new Map<string, string>();
  private counter = 0;
  private readonly rand: (n: number) => number;

  constructor(
    readonly name: string,
    seed: number,
    /** Half-width of the uniform distribution weights are drawn from: small, so activations stay finite. */
    private readonly scale = 0.05,
  ) {
    this.rand = prng(seed);
  }

  input(name: string, elemType: number, dims: (number | string)[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims: (number | string)[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** A float32 initializer: drawn from the seeded generator, or filled with `fill`. */
  weight(name: string, dims: number[], fill?: number): string {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    if (fill !== undefined) data.fill(fill);
    else for (let i = 0; i < n; i++) data[i] = ((this.rand(2001) - 1000) / 1000) * this.scale;
    this.initializers.push({ name, dims, dataType: FLOAT, rawData: bytesOf(data) });
    return name;
  }

  /** An int64 constant (dims [] for a scalar), shared by every node that uses the same value. */
  i64(values: number[], dims: number[] = [values.length]): string {
    return this.constant(INT64, values, dims, () => bytesOf(BigInt64Array.from(values.map(BigInt))));
  }

  /** A float32 constant (dims [] for a scalar). */
  f32(values: number[], dims: number[] = []): string {
    return this.constant(FLOAT, values, dims, () => bytesOf(Float32Array.from(values)));
  }

  private constant(dataType: number, values: number[], dims: number[], raw: () => Uint8Array): string {
    const key = `${dataType}:${dims.join('x')}:${values.join(',')}`;
    let name = this.constants.get(key);
    if (!name) {
      name = `const_${this.constants.size}`;
      this.constants.set(key, name);
      this.initializers.push({ name, dims, dataType, rawData: raw() });
    }
    return name;
  }

  /** Adds a node; returns its output's name (`out`, or a generated one). */
  op(opType: string, input: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    const output = out ?? `${opType.toLowerCase()}_${this.counter++}`;
    this.nodes.push({
      opType,
      name: `n${this.nodes.length}_${opType}`,
      input,
      output: [output],
      attribute: Object.entries(attrs).map(([k, a]) => attribute(k, a)),
    });
    return output;
  }

  /** The serialized ModelProto (IR version 8, default domain at `opset`), with metadata as the model's properties. */
  encode(opset: number, metadata: Record<string, string | number>): Uint8Array {
    return onnx.ModelProto.encode({
      irVersion: 8,
      producerName: 'tolk-test',
      opsetImport: [{ domain: '', version: opset }],
      metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value: String(value) })),
      graph: { name: this.name, node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs },
    }).finish();
  }
}
