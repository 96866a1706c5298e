// Lucene's BM25 (defaults k1 = 1.2, b = 0.75) with its EnglishAnalyzer, for `npm run bench:search`
// (issue #23). Reads documents ("id<TAB>text" lines) and queries ("id<TAB>text" lines), indexes the
// documents in memory, and prints one line per query: "id<TAB>doc doc doc ..." (the top `depth`).
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

public class LuceneBm25 {
  public static void main(String[] args) throws Exception {
    Path docs = Path.of(args[0]);
    Path queries = Path.of(args[1]);
    int depth = Integer.parseInt(args[2]);
    Analyzer analyzer = new EnglishAnalyzer();
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(analyzer).setSimilarity(new BM25Similarity()))) {
      try (BufferedReader in = Files.newBufferedReader(docs, StandardCharsets.UTF_8)) {
        for (String line; (line = in.readLine()) != null; ) {
          int tab = line.indexOf('\t');
          if (tab < 0) continue;
          Document doc = new Document();
          doc.add(new StringField("id", line.substring(0, tab), Field.Store.YES));
          doc.add(new TextField("text", line.substring(tab + 1), Field.Store.NO));
          writer.addDocument(doc);
        }
      }
    }
    IndexSearcher searcher = new IndexSearcher(DirectoryReader.open(dir));
    searcher.setSimilarity(new BM25Similarity());
    StringBuilder out = new StringBuilder();
    try (BufferedReader in = Files.newBufferedReader(queries, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        int tab = line.indexOf('\t');
        if (tab < 0) continue;
        out.append(line, 0, tab).append('\t');
        BooleanQuery query = bagOfWords(analyzer, line.substring(tab + 1));
        if (!query.clauses().isEmpty()) {
          ScoreDoc[] hits = searcher.search(query, depth).scoreDocs;
          for (int i = 0; i < hits.length; i++) {
            if (i > 0) out.append(' ');
            out.append(searcher.storedFields().document(hits[i].doc).get("id"));
          }
        }
        out.append('\n');
      }
    }
    System.out.print(out);
  }

  /** The query's analyzed terms, each a SHOULD clause (what the classic query parser makes of plain words, without its syntax). */
  static BooleanQuery bagOfWords(Analyzer analyzer, String text) throws IOException {
    BooleanQuery.Builder query = new BooleanQuery.Builder();
    try (TokenStream tokens = analyzer.tokenStream("text", text)) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken()) query.add(new TermQuery(new Term("text", term.toString())), BooleanClause.Occur.SHOULD);
      tokens.end();
    }
    return query.build();
  }
}
