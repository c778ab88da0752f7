"""Calibration corpus for the limitation's "real sentences about attention" check.

``SOUND`` holds limitations a careful student could write, in varied styles and on
varied topics, many outside the classifier's topic list: none of them may be flagged
by the prose check. ``HOSTILE`` holds stuffing and gibberish: every one must be
flagged for a human (review, provisional points), never given full points silently.
Keys name the case so a failing test says which text broke.
"""

from __future__ import annotations

SOUND: dict[str, str] = {
    "interpretability": (
        "Attention maps look like an explanation, but they are hard to interpret. A head can "
        "spread its weight over punctuation or the first token even when those tokens carry no "
        "meaning, and different heads in the same layer often disagree. So reading a heatmap "
        "tells you where the model looked, not what it understood or why it produced the answer."
    ),
    "data and compute cost": (
        "Transformers need a huge amount of training data and compute before attention learns "
        "useful patterns. On a small dataset the model has no built-in assumptions to fall back "
        "on, so it tends to overfit, while a convolutional network with the same number of "
        "parameters would generalise better. Training large models is therefore expensive in "
        "GPU hours and energy."
    ),
    "inductive bias": (
        "Self-attention has a weak inductive bias. It treats every pair of positions the same "
        "way at the start of training, so it must learn from data that nearby pixels or "
        "neighbouring words usually matter more. CNNs and RNNs get locality for free, which is "
        "why vision transformers need much more data or pre-training to match them."
    ),
    "long-range reasoning": (
        "Even when a fact is inside the context, the model may fail to use it. Attention is "
        "spread over thousands of tokens, and information in the middle of a long prompt is "
        "often ignored; multi-step reasoning that needs to combine two distant facts is "
        "especially fragile, because each layer can only move a limited amount of information "
        "between positions."
    ),
    "hallucination from retrieval": (
        "Attention can pick the wrong passage. If two documents in the context have similar "
        "wording, the query matches both keys, and the model may blend their content and "
        "confidently state a fact that appears in neither source. This is one way "
        "retrieval-augmented models still hallucinate."
    ),
    "tokenisation": (
        "The model attends over subword tokens, not letters or digits. A small change in "
        "spelling or spacing can split a word into very different tokens, so the attention "
        "pattern and the output change too. This is why transformers struggle to count "
        "characters or do arithmetic on long numbers."
    ),
    "non-native memory": (
        "Attention have problem with long text. Every token must to compute a score with all "
        "other tokens, so when the sentence become two time longer the memory become four time "
        "bigger. For this reason we cannot give very long document to the model in one time."
    ),
    "non-native importance": (
        "In my opinion the biggest limitation is that attention weight is not same as "
        "importance. Model can put high weight to one word but the output is depending also on "
        "value vectors and on the next layers, so we can not say this word is the reason of "
        "prediction."
    ),
    "list of reasons": (
        "Attention has several limitations. First, its cost grows with the square of the "
        "sequence length. Second, it has no sense of order unless positional encodings are "
        "added. Third, the weights are easy to over-interpret as explanations. The first one "
        "matters most in practice, because it limits how much text fits in memory."
    ),
    "short plain": (
        "Attention weights show where a query looked, but a high weight on a token does not "
        "mean that token caused the output of the model."
    ),
    "technical notation": (
        "For a sequence of n tokens, QK^T is an n-by-n matrix, so both time and memory scale as "
        "O(n^2) per head and per layer. FlashAttention reduces memory traffic but not the "
        "number of operations, and sparse or linear approximations trade accuracy for speed."
    ),
    "forgotten padding mask": (
        "If I forget to mask the padding tokens, the softmax still gives them some probability, "
        "so real queries mix in garbage values from empty positions. The result silently "
        "depends on how much padding the batch has, which is a bug that is hard to notice."
    ),
    "rank collapse": (
        "Stacking many attention layers can make token representations more and more similar, "
        "because each layer averages value vectors. Without residual connections this rank "
        "collapse means the deep layers lose the differences between tokens that the task "
        "needs."
    ),
    "softmax saturation": (
        "Softmax attention cannot focus sharply on one token unless the scores are very large, "
        "and large scores give tiny gradients, so training can get stuck. Without scaling by "
        "the square root of d_k, dot products grow with the dimension and the softmax "
        "saturates."
    ),
    "casual context window": (
        "Honestly the thing that bugs me most is the context window. Once a conversation gets "
        "longer than the limit, older messages just fall out, and the model has no memory of "
        "them at all, even if they mattered for the answer."
    ),
    "distraction": (
        "Attention is easy to distract. Adding irrelevant sentences that share words with the "
        "question can pull the weights away from the relevant part of the input, and the "
        "accuracy of the model drops even though the needed information is still there."
    ),
    "bias from data": (
        "Attention learns whatever associations are in the training data. If the data links "
        "certain names with certain jobs, the heads will learn to attend to those cues and the "
        "model reproduces the bias; the mechanism itself has no way to tell a useful pattern "
        "from a harmful one."
    ),
    "order with an example": (
        "On its own, attention does not know the order of the words. If you shuffle the input "
        "tokens, the outputs are shuffled in the same way but otherwise identical, so 'dog "
        "bites man' and 'man bites dog' look the same. We have to add position information, "
        "and the choice of encoding then limits how well the model handles lengths it never "
        "saw during training."
    ),
    "coreference example": (
        "Attention does not guarantee that the right word is picked. In 'The trophy did not fit "
        "in the suitcase because it was too big', the pronoun 'it' has to attend to 'trophy', "
        "but a head may attend to 'suitcase' instead since both are nearby nouns, and nothing "
        "in the mechanism checks that the choice makes sense."
    ),
    "kv cache": (
        "During generation every new token attends to all previous tokens, so the key-value "
        "cache grows linearly with the length of the output and each step gets slower. For "
        "long chats this cache can use more GPU memory than the model weights themselves."
    ),
    "long essay": (
        "The limitation I find most important is that attention weights are so easy to read "
        "and so easy to misread. When we plot a heatmap for a sentence, it is tempting to say "
        "that the model 'focused' on the bright cells and that those words are the reason for "
        "its prediction. But the weight only describes how the query mixed the value vectors "
        "in one head of one layer. The same output could often be produced with a quite "
        "different pattern, because other heads, the feed-forward blocks and the residual "
        "stream carry information too. Studies that remove or permute the most attended "
        "tokens sometimes find that the prediction barely changes, which shows the weights are "
        "not a faithful explanation. So attention maps are a useful debugging tool, but they "
        "should not be presented to users as the reason behind a decision."
    ),
    "lowercase no punctuation": (
        "attention is expensive because every token looks at every other token so if the "
        "input is long you need a lot of memory and time and that is why models have a max "
        "length"
    ),
    "terse semicolons": (
        "Main limitation: cost. Each query is compared with every key; for 10,000 tokens that "
        "is 100 million scores per head; memory runs out quickly on a normal GPU; so long "
        "inputs must be truncated or chunked."
    ),
    "many heads": (
        "A heatmap from one head is only a partial view: a model with 12 layers and 12 heads "
        "has 144 attention maps, and they interact through the residual stream, so picking one "
        "map to explain a prediction is cherry-picking."
    ),
    "low-resource languages": (
        "Attention models work worse for languages with little training text. Their "
        "tokenizers split such languages into many short pieces, so sentences become longer "
        "sequences, cost more compute, and the model sees fewer examples of each word."
    ),
    "highlighter analogy": (
        "Attention is a bit like a student skimming a textbook with a highlighter: it marks "
        "what looks relevant to the question, but highlighting a line is not the same as "
        "understanding it. The weights show what was highlighted, not whether the model "
        "reasoned correctly from it."
    ),
    "non-native averaging": (
        "A limitation of the attention is that it makes a weighted average of the values. "
        "Because of this, when many keys are relevant, the information gets mixed and the "
        "model can not keep them separate, it is loosing details of each one."
    ),
    "vision patches": (
        "For images, attention over all patches is costly: a 1024 by 1024 picture cut into 16 "
        "by 16 patches gives 4096 tokens, and the attention matrix then has about 16 million "
        "entries per head, which is why vision transformers use windows or lower resolutions."
    ),
    "attention sink": (
        "The softmax always sums to one, so attention has to put its weight somewhere even "
        "when no key is relevant. Heads learn to dump weight on the first token or a separator "
        "as an 'attention sink', which makes the weights misleading to read."
    ),
    "length generalisation": (
        "Models trained on short sequences often fail on longer ones. Positions beyond the "
        "training length get encodings the model never saw, and the attention scores become "
        "unreliable, so accuracy drops sharply instead of degrading gracefully."
    ),
    "bulleted sentences": (
        "Two reasons attention is costly:\n"
        "- every query is scored against every key, so the score matrix is n by n;\n"
        "- that matrix has to be kept in memory for the backward pass during training.\n"
        "Together these make long documents slow and expensive to process."
    ),
    "first person hands-on": (
        "When I plotted the weights in the notebook, the padded positions still got a little "
        "weight before I added the mask, and the outputs changed when I changed how much "
        "padding there was. So the result depends on a convention that is easy to get wrong."
    ),
    "party analogy": (
        "Attention works a bit like a guest at a noisy party who listens to everyone at once and "
        "averages what they hear, weighted by how interesting each voice sounds. If two friends "
        "say similar things, their words blur together, so the guest may repeat a mix of both "
        "stories instead of the right one."
    ),
    "typos and its": (
        "Its not guaranteed that the the most attended token is the one that matters, their is "
        "no mechanism that checks it. The model can still give the right answer when we remove "
        "that token, so the weight was not the reason."
    ),
    "parallel sentences": (
        "Attention is slow for long inputs because every token is compared with every other "
        "token. Attention is also memory-hungry for long inputs because all of those scores are "
        "stored at once. Both problems get four times worse when the input doubles."
    ),
    "code identifiers": (
        "In PyTorch, nn.MultiheadAttention returns averaged weights by default "
        "(average_attn_weights=True), so the per-head patterns are hidden; if you only look at "
        "that average you can miss that one head attends to padding and another to the "
        "previous token."
    ),
    "question and answer": (
        "What can attention not do? It cannot count reliably. To count how many times a word "
        "occurs, the model would need the sum of matches, but softmax normalises the weights, "
        "so ten matches and one match can give nearly the same average."
    ),
    "minimal twenty words": (
        "Self-attention needs memory quadratic in the sequence length, so very long documents "
        "often do not fit on a single GPU."
    ),
}

# The example from the bug report, word for word: one keyword, then an unrelated sentence.
STUFFED_EXAMPLE = (
    "Quadratic. Purple elephants dance on the rooftop while seven trombones whisper about "
    "marmalade, and nobody asks the weather for permission to sing loudly."
)

HOSTILE: dict[str, str] = {
    "stuffed example": STUFFED_EXAMPLE,
    "stuffed softmax lighthouse": (
        "Softmax. The old lighthouse keeper painted his boat bright yellow every spring, and "
        "the seagulls never seemed to mind the smell of fresh paint drying in the sun."
    ),
    "stuffed keyword at the end": (
        "My grandmother keeps a garden full of tomatoes and roses, and every Sunday we drink "
        "lemonade on the porch and talk about the neighbours and their dogs. Attention is "
        "quadratic."
    ),
    "stuffed keyword in the middle": (
        "We went hiking last weekend and the view from the summit was amazing. Attention has a "
        "quadratic cost. Afterwards we ate pizza in a tiny village restaurant and drove home "
        "singing along to old songs on the radio."
    ),
    "stuffed keywords sprinkled": (
        "Quadratic softmax attention: purple elephants dance on the rooftop while seven "
        "trombones whisper about marmalade, nobody asks the weather for permission, and the "
        "residual pancakes sing loudly to the moon."
    ),
    "word salad": (
        "Banana keyboard yesterday quickly purple mountain softly quadratic window seventeen "
        "umbrella running pillow attention clock tomorrow green violin jumping river."
    ),
    "word salad with domain words": (
        "Softmax query banana vector elephant key seven layer marmalade tokens quadratic purple "
        "attention rooftop window head trombone matrix pillow memory"
    ),
    "shuffled sound text": (
        # TOPIC_TEXTS["quadratic"] of test_limitation.py, lowercased, words shuffled.
        "memory the the grows number with attention quadruples every score entries with and "
        "the every needed so length dense compares compute doubling quadratically length of "
        "query the sequence key"
    ),
    "lorem ipsum": (
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
        "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
        "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat."
    ),
    "lorem ipsum with keywords": (
        "Lorem ipsum dolor sit amet, quadratic attention, consectetur adipiscing elit, sed do "
        "eiusmod tempor incididunt ut labore et dolore magna aliqua, context window, ut enim ad "
        "minim veniam."
    ),
    "keyword list": (
        "attention, quadratic, softmax, query, key, value, memory, context window, positional "
        "encoding, residual, masking, padding, retrieval, causal, explanation, heads, layers, "
        "tokens, sequence length, compute"
    ),
    "keyword bullets": (
        "- quadratic cost\n- context window\n- positional encoding\n- causal explanation\n"
        "- padding mask\n- retrieval failure\n- residual connection\n- softmax saturation\n"
        "- memory usage\n- compute budget"
    ),
    "cooking plus keyword": (
        "To make a good risotto, toast the rice in butter, add warm stock one ladle at a time "
        "and stir until it is creamy, then finish with parmesan and black pepper. Quadratic."
    ),
    "cooking with keyword inside": (
        "Preheat the oven, whisk every pair of eggs with the sugar, fold in the flour and bake "
        "the cake for thirty minutes until the top is golden and a knife comes out clean."
    ),
    "sentence repeated": "Attention is quadratic in the sequence length. " * 5,
    "sentence repeated with small changes": (
        "Attention is quadratic in the sequence length. Attention is clearly quadratic in the "
        "input sequence length. Honestly, attention is quadratic in the sequence length of the "
        "input. Attention, as we know, is quadratic in the sequence length. In short, attention "
        "is quadratic in the length."
    ),
    "random english with window": (
        "The train to Edinburgh was delayed again this morning, so I bought a coffee, read half "
        "of a novel about pirates, and watched the rain drift across the empty platform while "
        "the window fogged up."
    ),
    "random english about memory": (
        "Memory is a wonderful thing. It lets us remember birthdays, the smell of our childhood "
        "home and the songs we loved as teenagers; without memory, every morning would feel "
        "like meeting the world for the first time."
    ),
    "random english about order": (
        "In our house the order of chores never changes: my brother walks the dog, my sister "
        "waters the plants, and I take out the recycling before the bus arrives at the corner "
        "every morning."
    ),
    "keywords glued with and": (
        "Attention and softmax and query and key and value and memory and context window and "
        "positional encoding and residual and masking and padding and heads and layers."
    ),
    "keyword template": (
        "The attention of the softmax of the query of the key of the value of the memory of the "
        "context of the window of the position of the padding of the residual of the heads."
    ),
}

# --- Not the student's own words about attention (issue 25) ---------------------------------
# Each must go to a person with provisional points (never silent full marks, never a zero).

# Text from the release notebook, word for word. The tests check that each really is there.
COPIED: dict[str, str] = {
    "closing cell caution": (
        "And one caution: attention weights alone are not causal explanations. Your value "
        "intervention showed that the weights do not say how much a key changed the output; that "
        "depends on the values too, and in a real model on residual paths and later layers."
    ),
    "closing cell first idea": (
        "Attention is query-dependent weighted retrieval. A query is compared with every key, a "
        "stable softmax turns the scores into weights over the available keys, and the output is "
        "the weighted average of their values."
    ),
    "Step 11 bullet: guaranteed retrieval": (
        "guaranteed retrieval: a key is retrieved only if its score stands out. In the cell below "
        "the first key is always reachable, but when nothing singles it out its weight shrinks "
        "like 1 / T."
    ),
    "Step 11 bullet: perfect reasoning": (
        "perfect reasoning: one layer gives each query one weighted average per head; combining "
        "several facts takes more layers, and training decides whether they learn to."
    ),
    "Step 11 bullet: unlimited context": (
        "In self-attention the last query is compared with the first key directly: a query "
        "reaches a distant key within one dense layer. unlimited context: the T² scores must all "
        "be computed, even when fused kernels avoid storing them, and a trained model is "
        "reliable only up to its context window, the lengths it saw in training."
    ),
    "Step 10 heatmap": (
        "A heatmap alone does not tell you how much a key mattered for the output: that depends "
        "on the values too (and, in a real model, on residual paths and later layers)."
    ),
}

# The same, lightly edited: a few words changed, dropped or added, the order kept.
EDITED_COPIES: dict[str, str] = {
    "closing cell caution, edited": (
        "One caution: attention weights by themselves are not causal explanations. The value "
        "intervention showed that weights do not tell how much a key changed the output; this "
        "depends on the values as well, and in a real model on the residual paths and the later "
        "layers."
    ),
    "closing cell caution, reworded in places": (
        "A caution is that the attention weights alone are not causal explanations. My value "
        "intervention showed the weights do not say how much each key changed an output, since "
        "that depends on the values too and, in real models, on residual paths and on later "
        "layers."
    ),
    "Step 11 retrieval, edited": (
        "There is no guaranteed retrieval: a key is only retrieved if its score stands out from "
        "the rest. In the notebook the first key was always reachable, but when nothing singled "
        "it out, its weight shrank like 1/T as the sequence grew."
    ),
    "Step 11 cost, edited": (
        "Dense attention computes one score for every query and key pair, per head and per "
        "sequence in the batch. For self-attention over T tokens that means T squared entries per "
        "head, so doubling T quadruples them. Fused kernels avoid storing the matrix, but not "
        "computing the pairs."
    ),
}

# Sound-looking limitations that assert the opposite of the lecture.
CONTRADICTING: dict[str, str] = {
    "weights are a faithful causal explanation": (
        "Attention weights are a faithful causal explanation of the output: the key with the "
        "largest weight is the one the model relied on, so the only limitation is that heatmaps "
        "become hard to read for long inputs."
    ),
    "weights show which input caused the output": (
        "The heatmap of the weights shows exactly which input token caused the output, but with "
        "many heads and layers there are so many heatmaps that reading all of them takes a long "
        "time."
    ),
    "a high weight means the token caused it": (
        "A high attention weight on a token means that the token caused the prediction. The "
        "limitation is that a softmax over thousands of tokens gives every weight a tiny value, "
        "so the plots get hard to see."
    ),
    "no cost growth": (
        "The cost of attention does not grow with the sequence length, because every query is "
        "handled in parallel on the GPU; the real limitation is that the weights are hard to "
        "interpret for a human reader."
    ),
    "doubling only doubles": (
        "Doubling the sequence length only doubles the number of scores, so long documents are "
        "fine in principle; the limitation is that the context window of a trained model is "
        "still fixed by its positional encoding."
    ),
    "masks are not needed": (
        "Masks are not needed in practice, because the softmax already gives padded tokens a "
        "small weight; the real limitation of attention is that it needs a lot of training data "
        "to learn useful patterns."
    ),
    "zero score gives zero weight": (
        "A zero score gives zero weight, so keys that do not match the query are ignored; the "
        "limitation is that keys with slightly positive scores still dilute the context vector of "
        "the query."
    ),
}

# The same claims, negated or reported: what the lecture says. No finding, full points.
AGREEING: dict[str, str] = {
    "weights are NOT a faithful causal explanation": (
        "Attention weights are NOT a faithful causal explanation of the output: the key with the "
        "largest weight need not be the one the model relied on, because the values and the later "
        "layers shape the result too."
    ),
    "tempting, but not": (
        "It is tempting to read attention weights as a faithful explanation of a prediction, but "
        "they are not: changing a value row moves the output without changing any weight, so the "
        "weights alone cannot say what mattered."
    ),
    "weights do not show which input caused it": (
        "The heatmap of the weights does not show which input token caused the output, because "
        "the same weights can produce very different outputs when the value vectors change, as the "
        "value intervention shows."
    ),
    "the cost grows": (
        "The cost of attention grows quadratically with the sequence length, because every query "
        "is scored against every key; doubling the length quadruples the score entries, so long "
        "documents quickly run out of memory."
    ),
    "masks are needed": (
        "Masks are needed in practice, because without one the softmax gives padded filler tokens "
        "a positive weight and their values leak into every real query's context vector."
    ),
    "a zero score does not give zero weight": (
        "A zero score does not give zero weight: exp(0) is 1, so keys that do not match the query "
        "still take part of the weight and blur the context unless a padding mask removes them."
    ),
}

# Vacuous: no concrete claim. The first is the example of the issue, word for word (too short,
# and no topic: already reviewed); the others pass the length, topic and prose checks.
VACUOUS_EXAMPLE = (
    "Attention has limitations that matter in some situations and should be considered carefully."
)
VACUOUS: dict[str, str] = {
    "the issue's example": VACUOUS_EXAMPLE,
    "filler about explanation": (
        "The main limitation of attention is that its weights are not always an explanation, and "
        "this really matters in some situations, so it should be considered carefully whenever we "
        "use a model."
    ),
    "filler with a strong cue": (
        "Attention has some important limitations for explanation, and these limitations can "
        "matter in certain situations, so people should be careful and think about them whenever "
        "they use attention models."
    ),
    "filler about cost": (
        "One limitation of attention is its cost, which can matter in some situations, so the cost "
        "should be considered carefully by anyone who uses attention in a model."
    ),
    # Issue 38: one claim restated in other forms of its words, hedged ("not always",
    # "everything about", "the whole explanation"): 5 specific words, but 4 ideas.
    "a hedged tautology": (
        "The weights that attention computes do not always explain everything about why a model "
        "behaves as it does, so the explanation that the weights give is not always the whole "
        "explanation of the output"
    ),
    "three vague nouns": (
        "Attention weights, scores and the softmax have some limitations that can matter in "
        "certain situations, so they should be considered carefully whenever we use them for an "
        "explanation."
    ),
}
