package org.example.textkit;

import java.util.Set;

public final class Keywords {

    private final Set<String> keywords;

    public Keywords(Set<String> keywords) {
        this.keywords = keywords;
    }

    public boolean isKeyword(String word) {
        return keywords.contains(word);
    }
}
