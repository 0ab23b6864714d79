// What the memory service hands out: camelCase domain objects read from the rows; the HTTP routes turn them into wire bodies.
import type { JobRow, MemoryRow } from '../../store/repositories/memory-repository.js';

export type MemoryJobOperation = 'import' | 'export';
export type MemoryJobStatus = 'awaiting_input' | 'processing' | 'completed' | 'downloaded' | 'failed' | 'expired';

export interface MemorySummary {
  id: string;
  name: string;
  sourceLanguage: string;
  targetLanguages: string[];
  segmentCount: number;
}

export interface Memory extends MemorySummary {
  createdAt: Date;
  updatedAt: Date;
}

export interface MemoryPage {
  memories: MemorySummary[];
  totalCount: number;
}

export interface MemoryJob {
  id: string;
  operation: MemoryJobOperation;
  status: MemoryJobStatus;
  /** The memory an import created or an export reads. */
  memoryId: string | null;
  displayName: string;
  contentType: string | null;
  contentLength: number | null;
  errorMessage: string | null;
  skippedSegmentCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** Until when an awaited upload is taken, or a finished export can be downloaded. */
  expiresAt: Date | null;
}

/** An import waiting for its file, to be uploaded until `expiresAt`. */
export interface ImportStart {
  jobId: string;
  expiresAt: Date;
}

/** `ready`: a recent export of the unchanged memory is reused (its file can be downloaded now); else one was started. */
export interface ExportStart {
  jobId: string;
  memoryId: string;
  ready: boolean;
}

/** What an import needs to know of its file before it arrives. */
export interface ImportInput {
  displayName: string;
  contentType: string;
  contentLength?: number;
}

export interface SegmentTarget {
  id: string;
  language: string;
  text: string;
}

/** A source segment (one translation unit) with its targets. */
export interface SegmentGroup {
  id: string;
  text: string;
  createdAt: Date;
  targets: SegmentTarget[];
}

export interface SegmentPage {
  segments: SegmentGroup[];
  /** Segments of the whole memory, not of the page. */
  segmentCount: number;
  nextPageCursor?: string;
}

const date = (ms: number) => new Date(Number(ms));

export function memorySummary(m: MemoryRow): MemorySummary {
  return {
    id: m.id,
    name: m.name,
    sourceLanguage: m.source_lang,
    targetLanguages: JSON.parse(m.target_langs) as string[],
    segmentCount: Number(m.segment_count),
  };
}

export function memoryOf(m: MemoryRow): Memory {
  return { ...memorySummary(m), createdAt: date(m.created_at), updatedAt: date(m.updated_at) };
}

export function memoryJob(job: JobRow): MemoryJob {
  return {
    id: job.id,
    operation: job.operation as MemoryJobOperation,
    status: job.status as MemoryJobStatus,
    memoryId: job.memory_id,
    displayName: job.display_name,
    contentType: job.content_type,
    contentLength: job.content_length === null ? null : Number(job.content_length),
    errorMessage: job.error_message,
    skippedSegmentCount: Number(job.skipped_segment_count),
    createdAt: date(job.created_at),
    updatedAt: date(job.updated_at),
    expiresAt: job.expires_at === null ? null : date(job.expires_at),
  };
}
